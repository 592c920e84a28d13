import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// Thin wrappers over the POSIX calls the loop uses, keeping their C names so
/// they stay greppable. Each turns errno into `SystemError` or `.wouldBlock`.
public enum Posix {
    public static func close(_ fd: Int32) {
        // Linux always releases the fd, even on EINTR, so retrying would be wrong.
        _ = Glibc.close(fd)
    }

    public static func read(
        _ fd: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemError) -> IOResult<Int> {
        try retryingSyscall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    public static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try retryingSyscall("write") { Glibc.write(fd, buffer.baseAddress, buffer.count) }
    }

    public static func shutdownWrite(_ fd: Int32) {
        // ENOTCONN after a reset is expected and harmless: the peer is gone.
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 { throw SystemError(call: "fcntl(F_GETFL)", errno: currentErrno()) }
        if fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 {
            throw SystemError(call: "fcntl(F_SETFL)", errno: currentErrno())
        }
    }

    public static func setOption(_ fd: Int32, level: Int32, name: Int32, value: Int32) throws(SystemError) {
        var v = value
        let rc = setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size))
        if rc < 0 { throw SystemError(call: "setsockopt(\(level), \(name))", errno: currentErrno()) }
    }

    /// Raises the soft open-file limit to the hard limit; returns the new soft limit.
    public static func raiseOpenFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// Keeps freed heap memory in the process instead of returning it to the
    /// kernel at every free: fan-out fills and drains per-connection buffers
    /// many times a second (docs/architecture.md, "Event loops", has the cost
    /// measured). Memory is still reused; the resident size stays at its
    /// high-water mark.
    public static func keepFreedMemory() {
        _ = mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024)
        _ = mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024)
    }

    /// Ignore SIGPIPE: a write to a reset socket must return EPIPE, not kill the process.
    public static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }
}
