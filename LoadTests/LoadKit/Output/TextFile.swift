#if canImport(Glibc)
import Glibc
#endif

/// Whole text files read and written without Foundation: the report writers'
/// and the drivers' way to the file system.
public enum TextFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// The file's bytes as UTF-8 text (invalid sequences repaired).
    public static func read(_ path: String) throws(Failure) -> String {
        guard let file = fopen(path, "r") else {
            throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { fclose(file) }
        guard let text = readAll(file) else { throw Failure(description: "cannot read \(path): read error") }
        return text
    }

    /// What is left to read from `file` (a file or a pipe), or nil on a read error.
    static func readAll(_ file: UnsafeMutablePointer<FILE>) -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            bytes.append(contentsOf: chunk[0..<count])
            if count < chunk.count { break }
        }
        return ferror(file) != 0 ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Replaces the file's content with `text`.
    public static func write(_ path: String, _ text: String) throws(Failure) {
        guard let file = fopen(path, "w") else {
            throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let bytes = Array(text.utf8)
        let written = fwrite(bytes, 1, bytes.count, file)
        let closed = fclose(file)
        if written != bytes.count || closed != 0 { throw Failure(description: "short write to \(path)") }
    }

    /// Creates `path` and its missing parents.
    public static func makeDirectories(_ path: String) throws(Failure) {
        var partial = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            partial += component + "/"
            if mkdir(partial, 0o755) != 0 && errno != EEXIST {
                throw Failure(description: "cannot create \(partial): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The text as Python's `open(path).read()` gives it: line ends `\r\n` and `\r` read as `\n`.
    public static func readNormalizingNewlines(_ path: String) throws(Failure) -> String {
        try read(path).replacing("\r\n", with: "\n").replacing("\r", with: "\n")
    }
}
