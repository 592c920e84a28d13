import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// poll(2) over a fixed set of descriptors, for threads that block by design
/// (the writer's shards wait on their queue's eventfd and their database
/// socket). The set is allocated once; a wait allocates nothing.
public struct PollSet {
    /// What a descriptor is ready for, or asked to be.
    public struct Events: OptionSet, Sendable {
        public let rawValue: Int16
        public init(rawValue: Int16) { self.rawValue = rawValue }

        public static let readable = Events(rawValue: Int16(POLLIN))
        public static let writable = Events(rawValue: Int16(POLLOUT))
        /// An error or hang-up: reported whether asked for or not.
        public static let failed = Events(rawValue: Int16(POLLERR | POLLHUP))
    }

    private var fds: [pollfd]

    /// One entry per descriptor, in order, each waiting to be readable.
    public init(_ descriptors: [Int32]) {
        fds = descriptors.map { pollfd(fd: $0, events: Events.readable.rawValue, revents: 0) }
    }

    /// What the descriptor at `index` waits for.
    public mutating func watch(_ index: Int, for events: Events) {
        fds[index].events = events.rawValue
    }

    /// Sleeps until a descriptor is ready or `timeoutMilliseconds` pass (-1:
    /// no timeout). Returns how many are ready; 0 on a timeout or a signal.
    public mutating func wait(timeoutMilliseconds: Int32) throws(SystemError) -> Int {
        try wait(timeoutNanoseconds: timeoutMilliseconds < 0 ? nil : UInt64(timeoutMilliseconds) * 1_000_000)
    }

    /// `wait` with a deadline finer than a millisecond (ppoll): nil waits
    /// without one. For a thread whose deadlines are a fraction of a
    /// millisecond apart, where rounding up to whole ones would add most of
    /// a wait again.
    public mutating func wait(timeoutNanoseconds: UInt64?) throws(SystemError) -> Int {
        let nanoseconds = timeoutNanoseconds.map { Int64(min($0, UInt64(Int64.max))) } ?? -1
        let ready = fds.withUnsafeMutableBufferPointer {
            csystem_poll_nanoseconds($0.baseAddress, nfds_t($0.count), nanoseconds)
        }
        if ready >= 0 { return Int(ready) }
        let err = currentErrno()
        if err == EINTR { return 0 }
        throw SystemError(call: "ppoll", errno: err)
    }

    /// What the last `wait` found for the descriptor at `index`.
    public func ready(_ index: Int) -> Events {
        Events(rawValue: fds[index].revents)
    }
}
