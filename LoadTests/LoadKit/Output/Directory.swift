#if canImport(Glibc)
import Glibc
#endif

/// Directory listings without Foundation.
enum Directory {
    /// The size of each entry of `path` (as `os.path.getsize` gives it); empty when
    /// `path` is not a directory.
    static func fileSizes(_ path: String) -> [Int] {
        guard let directory = opendir(path) else { return [] }
        defer { closedir(directory) }
        var sizes: [Int] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            if stat(path + "/" + name, &info) == 0 { sizes.append(Int(info.st_size)) }
        }
        return sizes
    }
}

extension Directory {
    /// The `.swift` files under `path`, recursively: each folder's files by name, then its subfolders by name.
    static func swiftFiles(_ path: String) -> [String] {
        guard let directory = opendir(path) else { return [] }
        var files: [String] = []
        var folders: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            var info = stat()
            guard stat(path + "/" + name, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                folders.append(name)
            } else if name.hasSuffix(".swift") {
                files.append(path + "/" + name)
            }
        }
        closedir(directory)
        return files.sorted() + folders.sorted().flatMap { swiftFiles(path + "/" + $0) }
    }
}
