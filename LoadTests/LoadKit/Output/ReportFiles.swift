#if canImport(Glibc)
import Glibc
#endif

/// Writes a report's JSON and HTML next to each other: DIR/SCENARIO.json, DIR/SCENARIO.html.
public enum ReportFiles {
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Returns the paths written.
    public static func write(_ report: RunReport, to directory: String) throws(WriteError) -> [String] {
        try makeDirectories(directory)
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let files = [
            (base + report.scenario + ".json", JSONReport.render(report)),
            (base + report.scenario + ".html", HTMLReport.render(report)),
        ]
        for (path, text) in files { try writeFile(path, text) }
        return files.map(\.0)
    }

    /// Creates `directory` and checks that files can be made in it, so that a
    /// bad `--out` stops the harness before its run rather than after it.
    public static func prepare(_ directory: String) throws(WriteError) {
        try makeDirectories(directory)
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw WriteError(description: "\(directory) is not a directory")
        }
        if access(directory, W_OK | X_OK) != 0 {
            throw WriteError(description: "cannot write in \(directory): \(String(cString: strerror(errno)))")
        }
    }

    private static func makeDirectories(_ path: String) throws(WriteError) {
        do { try TextFile.makeDirectories(path) } catch { throw WriteError(description: error.description) }
    }

    private static func writeFile(_ path: String, _ text: String) throws(WriteError) {
        do { try TextFile.write(path, text) } catch { throw WriteError(description: error.description) }
    }
}
