import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// The client side of a TCP connection, for threads that talk to another
/// server (the NATS client): a connect that never blocks, so the caller can
/// wait for it in poll() next to its wake-up eventfd and give up when told to
/// stop, and a send that cannot kill the process.
extension Socket {
    /// Starts connecting to `address` on a new non-blocking, close-on-exec
    /// socket. The socket polls writable once the attempt is over, either
    /// way; `finishConnect` then tells which. The caller owns the returned
    /// descriptor (and closes it on failure too); an attempt refused at once
    /// throws with the socket already closed.
    public static func connect(to address: SocketAddress) throws(SystemError) -> Int32 {
        let domain = address.family == .inet ? AF_INET : AF_INET6
        let fd = Glibc.socket(
            domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw SystemError(call: "socket", errno: currentErrno()) }
        let rc = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        if rc == 0 { return fd }
        let err = currentErrno()
        // EINTR: the attempt goes on in the background, exactly as EINPROGRESS.
        if err == EINPROGRESS || err == EINTR { return fd }
        Posix.close(fd)
        throw SystemError(call: "connect(\(address))", errno: err)
    }

    /// The outcome of a connect started by `connect(to:)`, once its socket has
    /// polled writable: returns when connected, throws the attempt's error
    /// (ECONNREFUSED, ETIMEDOUT...) otherwise.
    public static func finishConnect(_ fd: Int32) throws(SystemError) {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) < 0 {
            throw SystemError(call: "getsockopt(SO_ERROR)", errno: currentErrno())
        }
        if error != 0 { throw SystemError(call: "connect", errno: error) }
    }

    /// Writes like `Posix.write`, but a peer that has gone away comes back as
    /// EPIPE instead of raising SIGPIPE: a library cannot count on the process
    /// ignoring that signal.
    public static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemError) -> IOResult<Int> {
        try retryingSyscall("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }
}
