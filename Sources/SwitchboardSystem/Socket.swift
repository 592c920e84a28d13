import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// Socket creation and the calls a listener and a connection need.
public enum Socket {
    /// A non-blocking listening socket. With `reusePort`, every loop binds its
    /// own socket to the same address and the kernel spreads connections.
    public static func listen(on address: SocketAddress, reusePort: Bool, backlog: Int32) throws(SystemError) -> Int32 {
        let domain = address.family == .inet ? AF_INET : AF_INET6
        let fd = Glibc.socket(
            domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw SystemError(call: "socket", errno: currentErrno()) }
        do throws(SystemError) {
            try Posix.setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
            if reusePort { try Posix.setOption(fd, level: SOL_SOCKET, name: SO_REUSEPORT, value: 1) }
            if address.family == .inet6 {
                try Posix.setOption(fd, level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY, value: 1)
            }
            let rc = address.withSockAddr { Glibc.bind(fd, $0, $1) }
            if rc < 0 { throw SystemError(call: "bind(\(address))", errno: currentErrno()) }
            if Glibc.listen(fd, backlog) < 0 { throw SystemError(call: "listen(\(address))", errno: currentErrno()) }
        } catch {
            Posix.close(fd)
            throw error
        }
        return fd
    }

    /// Accepts one connection, already non-blocking and close-on-exec.
    /// EMFILE/ENFILE come back as errors so the caller can back off.
    public static func accept(_ listener: Int32) throws(SystemError) -> IOResult<Int32> {
        while true {
            let fd = accept4(listener, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if fd >= 0 { return .processed(fd) }
            let err = currentErrno()
            switch err {
            case EINTR: continue
            case EAGAIN: return .wouldBlock
            // The client gave up between SYN and accept: try the next one.
            case ECONNABORTED, EPROTO: continue
            default: throw SystemError(call: "accept4", errno: err)
            }
        }
    }

    /// Accepts one connection like `accept(_:)` and also says who it is from.
    public static func acceptWithPeer(_ listener: Int32) throws(SystemError) -> IOResult<AcceptedSocket> {
        var storage = sockaddr_storage()
        while true {
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd >= 0 { return .processed(AcceptedSocket(fd: fd, peer: PeerAddress(storage))) }
            let err = currentErrno()
            switch err {
            case EINTR: continue
            case EAGAIN: return .wouldBlock
            case ECONNABORTED, EPROTO: continue
            default: throw SystemError(call: "accept4", errno: err)
            }
        }
    }

    /// The port a socket is bound to (for listeners bound to port 0).
    public static func localPort(_ fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard rc == 0 else { return nil }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer -> UInt16 in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt16(bigEndian: $0.pointee.sin_port)
            }
        }
    }

    /// Small writes (acks, chat messages) must leave at once, not wait for Nagle.
    public static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Fixes the kernel's send buffer at `bytes` (`SO_SNDBUF`; the kernel
    /// doubles it for its bookkeeping and clamps it to `net.core.wmem_max`)
    /// and so ends its autotuning, which on loopback starts a socket at
    /// megabytes: what a peer does not read then waits in the caller's own
    /// queue, where it is counted, instead of in the kernel's, where it is not.
    public static func setSendBuffer(_ fd: Int32, bytes: Int) {
        var value = Int32(clamping: bytes)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the socket's `close` a reset (`SO_LINGER` with a zero timeout):
    /// the kernel drops what it still holds to send and answers RST, instead
    /// of keeping the closed socket to deliver it, for minutes if the peer
    /// does not read.
    public static func setResetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Sends several buffers in one system call.
    public static func writev(_ fd: Int32, _ vectors: UnsafeBufferPointer<iovec>) throws(SystemError) -> IOResult<Int> {
        try retryingSyscall("writev") { Glibc.writev(fd, vectors.baseAddress, Int32(vectors.count)) }
    }
}
