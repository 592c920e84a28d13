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
