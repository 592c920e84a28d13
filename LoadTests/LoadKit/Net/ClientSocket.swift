import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// The harness's one socket call the gateway never makes: a non-blocking
/// connect to an IPv4 loopback address. Completion is signalled by epoll
/// (writable), and `connectError` says whether it worked.
enum ClientSocket {
    /// `receiveBufferBytes`: SO_RCVBUF, set before the connect so that the
    /// window the gateway sees stays that small (a slow consumer).
    static func startConnect(host: String, port: UInt16, receiveBufferBytes: Int32? = nil) throws(SystemError) -> Int32
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        if fd < 0 { throw SystemError(call: "socket", errno: errno) }
        if let receiveBufferBytes {
            do {
                try Posix.setOption(fd, level: SOL_SOCKET, name: SO_RCVBUF, value: receiveBufferBytes)
            } catch {
                Posix.close(fd)
                throw error
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard let ip = ipv4Address(host) else {
            Posix.close(fd)
            throw SystemError(call: "inet_pton(\(host))", errno: EINVAL)
        }
        address.sin_addr = ip
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 && errno != EINPROGRESS {
            let failure = SystemError(call: "connect", errno: errno)
            Posix.close(fd)
            throw failure
        }
        Socket.setNoDelay(fd)
        return fd
    }

    /// `text` as an IPv4 address (dotted quad only: no names, no inet_addr
    /// shorthand such as "127.1"), or nil.
    static func ipv4Address(_ text: String) -> in_addr? {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1 ? address : nil
    }

    /// The outcome of a connect that epoll reported finished: nil on success.
    static func connectError(_ fd: Int32) -> SystemError? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) != 0 {
            return SystemError(call: "getsockopt(SO_ERROR)", errno: errno)
        }
        return value == 0 ? nil : SystemError(call: "connect", errno: value)
    }
}
