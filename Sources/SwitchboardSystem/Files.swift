import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// Blocking file-system calls for worker threads (the attachment store's
/// filesystem storage), never for an event loop. C names kept, errno turned
/// into `SystemError`; what a caller expects to be absent (`ENOENT` on
/// unlink, `EEXIST` on mkdir) is not an error.
public enum Files {
    /// Creates a folder; true when it was created, false when it existed already.
    @discardableResult
    public static func mkdir(_ path: String, mode: UInt32 = 0o750) throws(SystemError) -> Bool {
        if Glibc.mkdir(path, mode_t(mode)) == 0 { return true }
        let err = currentErrno()
        if err == EEXIST { return false }
        throw SystemError(call: "mkdir(\(path))", errno: err)
    }

    /// Creates `path` and its missing parents (mkdir -p).
    public static func makeFolders(_ path: String, mode: UInt32 = 0o750) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            try mkdir(prefix, mode: mode)
            prefix += "/"
        }
    }

    public static func rename(_ from: String, _ to: String) throws(SystemError) {
        if Glibc.rename(from, to) != 0 { throw SystemError(call: "rename(\(from), \(to))", errno: currentErrno()) }
    }

    /// Removes a file; false when there was none.
    @discardableResult
    public static func unlink(_ path: String) throws(SystemError) -> Bool {
        if Glibc.unlink(path) == 0 { return true }
        let err = currentErrno()
        if err == ENOENT { return false }
        throw SystemError(call: "unlink(\(path))", errno: err)
    }

    /// Makes a folder's entries (a rename or a new file in it) durable.
    public static func fsyncFolder(_ path: String) throws(SystemError) {
        let file = try OpenFile(path, flags: O_RDONLY | O_DIRECTORY)
        try file.fsync()
    }

    /// Size and last modification (seconds since the epoch) of `path` (a link's own, not its
    /// target's); nil when it does not exist.
    public static func stat(_ path: String) throws(SystemError) -> (size: Int64, modified: Int64)? {
        var info = Glibc.stat()
        if lstat(path, &info) == 0 { return (Int64(info.st_size), Int64(info.st_mtim.tv_sec)) }
        let err = currentErrno()
        if err == ENOENT { return nil }
        throw SystemError(call: "stat(\(path))", errno: err)
    }

    /// The names in a folder, without `.` and `..`; empty when the folder does not exist.
    public static func list(_ path: String) throws(SystemError) -> [String] {
        guard let folder = opendir(path) else {
            let err = currentErrno()
            if err == ENOENT { return [] }
            throw SystemError(call: "opendir(\(path))", errno: err)
        }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

/// An open file descriptor, closed when released. One owner thread at a time.
public final class OpenFile {
    public let fd: Int32
    public let path: String

    /// Opens `path` with open(2) flags (`O_*`) and, when creating, `mode`.
    public init(_ path: String, flags: Int32, mode: UInt32 = 0o640) throws(SystemError) {
        let fd = Glibc.open(path, flags | O_CLOEXEC, mode_t(mode))
        if fd < 0 { throw SystemError(call: "open(\(path))", errno: currentErrno()) }
        self.fd = fd
        self.path = path
    }

    /// Creates (or truncates) `path` for writing and reading back.
    public static func create(_ path: String) throws(SystemError) -> OpenFile {
        try OpenFile(path, flags: O_RDWR | O_CREAT | O_TRUNC)
    }

    /// Opens `path` for reading.
    public static func reading(_ path: String) throws(SystemError) -> OpenFile {
        try OpenFile(path, flags: O_RDONLY)
    }

    deinit { Posix.close(fd) }

    /// Writes all of `bytes` (a regular file takes short writes only on errors or a full disk).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let written = try retryingSyscall("write", blocking: true) { Glibc.write(fd, rest.baseAddress, rest.count) }
            guard case .processed(let n) = written, n > 0 else {
                throw SystemError(call: "write(\(path))", errno: ENOSPC)
            }
            done += n
        }
    }

    public func write(_ bytes: [UInt8]) throws(SystemError) {
        // withUnsafeBytes rethrows untyped errors: the typed one is carried out by hand.
        var failure: SystemError?
        bytes.withUnsafeBytes { raw in
            do throws(SystemError) { try write(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
    public func pread(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: buffer[done...])
            let read = try retryingSyscall("pread", blocking: true) {
                Glibc.pread(fd, rest.baseAddress, rest.count, off_t(offset) + off_t(done))
            }
            guard case .processed(let n) = read, n > 0 else { break }
            done += n
        }
        return done
    }

    /// Up to `count` bytes from `offset`; fewer only at the end of the file.
    public func read(at offset: Int64, count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var result: Result<Int, SystemError> = .success(0)
        bytes.withUnsafeMutableBytes { raw in
            result = Result { () throws(SystemError) in try pread(into: raw, at: offset) }
        }
        let n = try result.get()
        bytes.removeLast(bytes.count - n)
        return bytes
    }

    public func fsync() throws(SystemError) {
        while Glibc.fsync(fd) != 0 {
            let err = currentErrno()
            if err != EINTR { throw SystemError(call: "fsync(\(path))", errno: err) }
        }
    }
}
