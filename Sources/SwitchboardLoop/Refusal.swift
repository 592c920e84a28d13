import SwitchboardSystem

extension EventLoop {
    /// Answers a just-accepted socket with `response` and closes it, without
    /// creating a `Connection`: no buffers, no timer, no epoll registration.
    /// The response (a few hundred bytes) fits the new socket's empty send
    /// buffer. Our FIN follows it; what the client already sent is read and
    /// dropped first so that the close is not a reset that could discard the
    /// response at the client before it reads it.
    public func refuse(_ fd: Int32, with response: [UInt8]) {
        if !response.isEmpty { _ = response.withUnsafeBytes { bytes in try? Posix.write(fd, bytes) } }
        Posix.shutdownWrite(fd)
        _ = try? Posix.read(fd, into: readBuffer)
        Posix.close(fd)
    }
}
