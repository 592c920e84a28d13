import SwitchboardJSON

#if canImport(Glibc)
import Glibc
#endif

/// A target of Package.swift as `swift package dump-package` describes it.
public struct PackageTarget: Equatable, Sendable {
    public var name: String
    /// regular, executable, test, system, plugin...
    public var type: String
    /// The folder of its sources, relative to the package.
    public var path: String
    /// Every dependency by name (targets and products alike), in declared order.
    public var dependencies: [String]

    public init(name: String, type: String, path: String, dependencies: [String]) {
        self.name = name
        self.type = type
        self.path = path
        self.dependencies = dependencies
    }

    /// Tests, load harnesses and build tools (plugins and their executables) may use Foundation and libc.
    var isTestOrHarness: Bool {
        type == "test" || type == "plugin" || ["Tests/", "LoadTests/", "Plugins/"].contains { path.hasPrefix($0) }
    }

    /// The targets of `swift package dump-package`'s JSON.
    public static func parse(_ dump: String) throws(ReportError) -> [PackageTarget] {
        guard let value = try? JSONParser.parse(dump, limits: .reports), let targets = value["targets"]?.arrayValue
        else { throw ReportError(description: "swift package dump-package printed no targets") }
        return targets.compactMap { target in
            guard let name = target["name"]?.stringValue, let type = target["type"]?.stringValue else { return nil }
            // {"byName": [name, condition]}, {"target": [...]} or {"product": [name, package, ...]}
            let dependencies = (target["dependencies"]?.arrayValue ?? []).compactMap { dependency in
                dependency.objectValue?.values.first?.arrayValue?.first?.stringValue
            }
            let folder = type == "test" ? "Tests" : type == "plugin" ? "Plugins" : "Sources"
            let path = target["path"]?.stringValue ?? "\(folder)/\(name)"
            return PackageTarget(name: name, type: type, path: path, dependencies: dependencies)
        }
    }

    /// The package at `root`'s targets, from `swift package dump-package` (offline).
    public static func load(root: String) throws(ReportError) -> [PackageTarget] {
        let quoted = "'" + root.replacing("'", with: "'\\''") + "'"
        guard let pipe = popen("swift package --package-path \(quoted) dump-package 2>/dev/null", "r") else {
            throw ReportError(description: "cannot run swift package dump-package")
        }
        let output = TextFile.readAll(pipe)
        guard pclose(pipe) == 0, let output else { throw ReportError(description: "swift package dump-package failed") }
        return try parse(output)
    }
}
