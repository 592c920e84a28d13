import Foundation
import Testing

@testable import SwitchboardServer

/// The configuration parser against the official toml-test suite (the copy
/// Debian's golang-github-burntsushi-toml-dev ships; `scripts/test` installs
/// it, `SB_TOML_TEST_DIR` names another): every valid document it accepts
/// reads exactly as the suite's JSON says, every construct it does not take
/// is refused naming the file and the line, and no invalid document is
/// accepted. docs/protocol.md ("Configuration") says which subset that is.
@Suite struct TOMLConformanceTests {
    static let suite =
        ProcessInfo.processInfo.environment["SB_TOML_TEST_DIR"]
        ?? "/usr/share/gocode/src/github.com/BurntSushi/toml/internal/toml-test/tests"

    /// Every `.toml` file under `folder` of the suite, by its path there.
    private static func cases(_ folder: String) throws -> [String] {
        let root = URL(fileURLWithPath: suite).appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(atPath: root.path) else {
            throw TOMLSuiteMissing(path: root.path)
        }
        let files = walker.compactMap { $0 as? String }.filter { $0.hasSuffix(".toml") }.sorted()
        guard !files.isEmpty else { throw TOMLSuiteMissing(path: root.path) }
        return files.map { root.appendingPathComponent($0).path }
    }

    private static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func everyInvalidDocumentIsRefusedWithItsFileAndLine() throws {
        var accepted: [String] = []
        for path in try Self.cases("invalid") {
            let bytes = try Self.bytes(path)
            do throws(ConfigError) {
                _ = try ConfigFileParser.parse(bytes: bytes, source: path)
                accepted.append(String(path.dropFirst(Self.suite.count)))
            } catch {
                #expect(error.message.hasPrefix(path + ":"), "\(path): \(error.message)")
            }
        }
        #expect(accepted.isEmpty, "invalid TOML accepted: \(accepted)")
    }

    @Test func everyValidDocumentIsReadExactlyOrRefusedWithItsLine() throws {
        var read = 0
        var refused = 0
        for path in try Self.cases("valid") {
            let bytes = try Self.bytes(path)
            let values: [String: ConfigValue]
            do throws(ConfigError) {
                values = try ConfigFileParser.parse(bytes: bytes, source: path)
            } catch {
                #expect(error.message.hasPrefix(path + ":"), "\(path): \(error.message)")
                refused += 1
                continue
            }
            let json = try JSONSerialization.jsonObject(
                with: try Data(contentsOf: URL(fileURLWithPath: String(path.dropLast(4)) + "json")))
            var expected: [String: String] = [:]
            flatten(json, prefix: nil, into: &expected)
            #expect(values.mapValues(\.suiteForm) == expected, "\(path)")
            read += 1
        }
        // Most of TOML is not configuration: what matters is that nothing is read wrong. These are the counts.
        #expect(read > 0 && refused > 0, "read \(read), refused \(refused)")
        print(
            "toml-test: \(read) valid documents read exactly, \(refused) refused as outside the configuration's subset")
    }

    /// The suite's JSON as dotted keys and typed leaves (`integer:42`); empty tables leave nothing.
    private func flatten(_ value: Any, prefix: String?, into out: inout [String: String]) {
        guard let object = value as? [String: Any] else {
            out[prefix ?? ""] = leaf(value)
            return
        }
        if object.count == 2, object["type"] is String, object["value"] is String {
            out[prefix ?? ""] = leaf(value)
            return
        }
        for (key, child) in object { flatten(child, prefix: prefix.map { "\($0).\(key)" } ?? key, into: &out) }
    }

    private func leaf(_ value: Any) -> String {
        if let array = value as? [Any] { return "[" + array.map(leaf).joined(separator: ",") + "]" }
        guard let typed = value as? [String: Any], let type = typed["type"] as? String,
            let text = typed["value"] as? String
        else { return "?\(value)" }
        return "\(type):\(text)"
    }
}

extension ConfigValue {
    /// As the suite's JSON writes a value, in `leaf`'s form.
    fileprivate var suiteForm: String {
        switch self {
        case .string(let text): "string:\(text)"
        case .integer(let number): "integer:\(number)"
        case .boolean(let flag): "bool:\(flag)"
        case .strings(let items): "[" + items.map { "string:\($0)" }.joined(separator: ",") + "]"
        }
    }
}

struct TOMLSuiteMissing: Error, CustomStringConvertible {
    let path: String
    var description: String {
        "no toml-test cases at \(path): install Debian's golang-github-burntsushi-toml-dev (scripts/test does) "
            + "or set SB_TOML_TEST_DIR"
    }
}
