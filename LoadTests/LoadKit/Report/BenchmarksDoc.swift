import SwitchboardJSON

#if canImport(Glibc)
import Glibc
#endif

/// docs/benchmarks.md, where each benchmark owns one `## ...` section between
/// `<!-- NAME:begin -->` and `<!-- NAME:end -->` and leaves the rest of the
/// document alone. The pieces every section shares are here too: its heading
/// with the run's date and machine, the raw output closing it, and the JSON
/// lines a benchmark printed.
public enum BenchmarksDoc {
    /// The document's start when it does not exist yet.
    public static let header =
        "# Benchmarks\n\nFigures from single runs on the machine named in each section; compare ratios within a run,"
        + " not wall-clock figures across runs.\n"

    /// The repository's root: $SB_ROOT (scripts/lib/common.sh exports it), else the current directory.
    public static var root: String {
        if let value = getenv("SB_ROOT"), value.pointee != 0 { return String(cString: value) }
        return currentDirectory
    }

    public static var currentDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public static var path: String { root + "/docs/benchmarks.md" }

    /// `text` with section `name` replaced by `body` (which ends in a newline), or the
    /// section appended after one blank line when `text` has none; nothing else changes.
    public static func replacingSection(_ name: String, with body: String, in text: String) -> String {
        let begin = "<!-- \(name):begin -->"
        let end = "<!-- \(name):end -->"
        let block = begin + "\n" + body + end + "\n"
        let bytes = Array(text.utf8)
        if let from = find(Array(begin.utf8), in: bytes), let to = find(Array(end.utf8), in: bytes) {
            // The newline after the end marker belongs to the block.
            let rest = min(to + end.utf8.count + 1, bytes.count)
            return String(decoding: bytes[..<from], as: UTF8.self) + block
                + String(decoding: bytes[rest...], as: UTF8.self)
        }
        var kept = text
        while kept.hasSuffix("\n") { kept.removeLast() }
        return kept + "\n\n" + block
    }

    /// Replaces (or appends) section `name` of the document at `path` (default docs/benchmarks.md),
    /// starting it from `header` when it does not exist.
    public static func replaceSection(_ name: String, with body: String, path: String = path) throws(TextFile.Failure) {
        let text = TextFile.exists(path) ? try TextFile.read(path) : header
        if let slash = path.lastIndex(of: "/") { try TextFile.makeDirectories(String(path[..<slash])) }
        try TextFile.write(path, replacingSection(name, with: body, in: text))
    }

    /// A section's first lines: `## TITLE`, a blank line, `Run DATE on MACHINE.`.
    public static func heading(_ title: String, date: String = utcMinute(), machine: String = machine()) -> [String] {
        ["## \(title)", "", "Run \(date) on \(machine)."]
    }

    /// The benchmark's own output, verbatim, closing a section (`output`: the file's text).
    public static func rawOutput(_ output: String) -> [String] {
        ["", "Raw output:", "", "```"] + pythonLines(output.trimmingPythonSpace()) + ["```"]
    }

    /// The JSON objects with a `kind` a benchmark printed one per line
    /// (docs/benchmarks.md, "Output formats"); other lines (progress, warnings) are skipped.
    public static func jsonLines(_ output: String) -> [JSONObject] {
        pythonLines(output).compactMap { line in
            let line = line.trimmingPythonSpace()
            guard line.hasPrefix("{"), let value = try? JSONParser.parse(line, limits: JSONLimits.reports),
                case .object(let object) = value, object["kind"] != nil
            else { return nil }
            return object
        }
    }

    /// Now, as `2026-01-20 10:00 UTC`.
    public static func utcMinute() -> String { WallClock.utcMinute() }

    /// This machine: `2 cores (MODEL), 23 GiB, Linux RELEASE`.
    public static func machine() -> String {
        var model = "unknown CPU"
        var memory = ""
        let cpuinfo = (try? TextFile.read("/proc/cpuinfo")) ?? ""
        if let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
            let colon = line.firstIndex(of: ":")
        {
            model = String(line[line.index(after: colon)...]).trimmingPythonSpace()
        }
        let meminfo = (try? TextFile.read("/proc/meminfo")) ?? ""
        if let line = meminfo.split(separator: "\n").last(where: { $0.hasPrefix("MemTotal") }),
            let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        {
            memory = "\(kib / (1024 * 1024)) GiB"
        }
        var names = utsname()
        uname(&names)
        let release = withUnsafeBytes(of: &names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return "\(sysconf(Int32(_SC_NPROCESSORS_ONLN))) cores (\(model)), \(memory), Linux \(release)"
    }

    /// `str.splitlines()` for text with `\n` line ends: no empty last line.
    static func pythonLines(_ text: String) -> [String] {
        if text.isEmpty { return [] }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if text.hasSuffix("\n") { lines.removeLast() }
        return lines
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
        }
        return nil
    }
}

extension JSONLimits {
    /// Large enough for any report a benchmark writes (the defaults guard the gateway's input).
    public static let reports = JSONLimits(
        maxDepth: 64, maxStringBytes: 1 << 24, maxMembers: 1 << 20, maxTotalBytes: 1 << 28)
}
