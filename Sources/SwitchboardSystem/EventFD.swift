import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// An eventfd used to wake a loop blocked in epoll_wait from another thread.
public struct EventFD: Sendable {
    public let fd: Int32

    public init() throws(SystemError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        if fd < 0 { throw SystemError(call: "eventfd", errno: currentErrno()) }
        self.fd = fd
    }

    /// Adds one to the counter; EAGAIN (counter saturated) still means the loop will wake.
    public func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(fd, $0.baseAddress, 8) }
    }

    /// Resets the counter so the edge-triggered registration can fire again.
    public func drain() {
        var value: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &value) { Glibc.read(fd, $0.baseAddress, 8) }
    }

    public func close() { Posix.close(fd) }
}
