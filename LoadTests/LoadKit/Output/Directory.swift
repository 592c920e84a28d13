#if canImport(Glibc)
import Glibc
#endif

/// Directory listings without Foundation.
enum Directory {
    /// The entries of `path` (not `.` and `..`) with what `stat` says of each; empty
    /// when `path` is not a directory.
    static func entries(_ path: String) -> [(name: String, info: stat)] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var entries: [(name: String, info: stat)] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            var info = stat()
            if name != "." && name != ".." && stat(path + "/" + name, &info) == 0 { entries.append((name, info)) }
        }
        return entries
    }

    /// The size of each entry of `path` (as `os.path.getsize` gives it).
    static func fileSizes(_ path: String) -> [Int] {
        entries(path).map { Int($0.info.st_size) }
    }

    /// The `.swift` files under `path`, recursively: each folder's files by name, then its subfolders by name.
    static func swiftFiles(_ path: String) -> [String] {
        let entries = entries(path)
        let folders = entries.filter { $0.info.st_mode & S_IFMT == S_IFDIR }.map(\.name).sorted()
        let files = entries.filter { $0.info.st_mode & S_IFMT != S_IFDIR && $0.name.hasSuffix(".swift") }
        return files.map { path + "/" + $0.name }.sorted() + folders.flatMap { swiftFiles(path + "/" + $0) }
    }
}
