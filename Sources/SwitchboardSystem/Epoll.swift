import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// epoll(7), edge-triggered. The 64-bit user data carries the fd and a
/// generation so that an event for a closed fd is never delivered to the
/// connection that reused the number.
public enum Epoll {
    public static let readable = UInt32(EPOLLIN.rawValue)
    public static let writable = UInt32(EPOLLOUT.rawValue)
    public static let peerHangup = UInt32(EPOLLRDHUP.rawValue)
    public static let hangup = UInt32(EPOLLHUP.rawValue)
    public static let error = UInt32(EPOLLERR.rawValue)
    public static let edgeTriggered = UInt32(EPOLLET.rawValue)

    public static func create() throws(SystemError) -> Int32 {
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        if fd < 0 { throw SystemError(call: "epoll_create1", errno: currentErrno()) }
        return fd
    }

    public static func add(_ epfd: Int32, fd: Int32, events: UInt32, data: UInt64) throws(SystemError) {
        try control(epfd, EPOLL_CTL_ADD, "epoll_ctl(ADD)", fd: fd, events: events, data: data)
    }

    /// Changes what `fd`, added already, is watched for.
    public static func modify(_ epfd: Int32, fd: Int32, events: UInt32, data: UInt64) throws(SystemError) {
        try control(epfd, EPOLL_CTL_MOD, "epoll_ctl(MOD)", fd: fd, events: events, data: data)
    }

    private static func control(
        _ epfd: Int32, _ operation: Int32, _ call: String, fd: Int32, events: UInt32, data: UInt64
    ) throws(SystemError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = data
        if epoll_ctl(epfd, operation, fd, &event) < 0 {
            throw SystemError(call: call, errno: currentErrno())
        }
    }

    public static func remove(_ epfd: Int32, fd: Int32) {
        // Closing the fd removes it anyway; failure here only means it is already gone.
        var event = epoll_event()
        _ = epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event)
    }

    /// Waits for events; returns how many were written into `events`. A
    /// signal ends the wait early with none.
    public static func wait(
        _ epfd: Int32, into events: EpollEvents, timeoutMilliseconds: Int32
    ) throws(SystemError) -> Int {
        let n = epoll_wait(epfd, events.buffer.baseAddress, Int32(events.buffer.count), timeoutMilliseconds)
        if n >= 0 { return Int(n) }
        let err = currentErrno()
        if err == EINTR { return 0 }
        throw SystemError(call: "epoll_wait", errno: err)
    }
}

/// Room for what one `Epoll.wait` returns, allocated once by the loop that waits.
public final class EpollEvents {
    fileprivate let buffer: UnsafeMutableBufferPointer<epoll_event>

    public init(capacity: Int) {
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// The event mask and the user data of the `index`th event of the last wait.
    public subscript(index: Int) -> (events: UInt32, data: UInt64) {
        (buffer[index].events, buffer[index].data.u64)
    }
}
