import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// A periodic timerfd. A loop registers it with epoll instead of passing a
/// timeout to every epoll_wait, which would arm and cancel a kernel timer on
/// each wake-up.
public struct TimerFD: Sendable {
    public let fd: Int32

    public init() throws(SystemError) {
        let fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        if fd < 0 { throw SystemError(call: "timerfd_create", errno: currentErrno()) }
        self.fd = fd
    }

    /// Fires every `milliseconds` from now on; 0 disarms.
    public func setPeriod(milliseconds: Int) {
        let seconds = milliseconds / 1000
        let nanoseconds = (milliseconds % 1000) * 1_000_000
        let interval = timespec(tv_sec: seconds, tv_nsec: nanoseconds)
        var spec = itimerspec(it_interval: interval, it_value: interval)
        _ = timerfd_settime(fd, 0, &spec, nil)
    }

    /// Consumes the expiration count so the edge-triggered registration fires again.
    public func drain() {
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { Glibc.read(fd, $0.baseAddress, 8) }
    }

    public func close() { Posix.close(fd) }
}
