import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address and port parsed from "HOST:PORT" ("[::1]:8080" for IPv6).
public struct SocketAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable, Equatable { case inet, inet6 }

    public let host: String
    public let port: UInt16
    public let family: Family

    public struct ParseError: Error, CustomStringConvertible {
        public let input: String
        public let reason: String
        public var description: String { "invalid address '\(input)': \(reason)" }
    }

    public init(parsing text: String) throws(ParseError) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ParseError(input: text, reason: "missing ']'") }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw ParseError(input: text, reason: "expected ':PORT' after ']'") }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw ParseError(input: text, reason: "expected HOST:PORT")
            }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portPart) else {
            throw ParseError(input: text, reason: "port must be a number from 0 to 65535")
        }
        let host = hostPart.isEmpty ? "0.0.0.0" : String(hostPart)
        if host == "localhost" {
            self.init(host: "127.0.0.1", port: port, family: .inet)
            return
        }
        var probe4 = in_addr()
        var probe6 = in6_addr()
        if inet_pton(AF_INET, host, &probe4) == 1 {
            self.init(host: host, port: port, family: .inet)
        } else if inet_pton(AF_INET6, host, &probe6) == 1 {
            self.init(host: host, port: port, family: .inet6)
        } else {
            throw ParseError(input: text, reason: "host must be an IPv4 or IPv6 address")
        }
    }

    public init(host: String, port: UInt16, family: Family) {
        self.host = host
        self.port = port
        self.family = family
    }

    public var description: String { family == .inet6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Calls `body` with this address as a `sockaddr` of the right size.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        switch family {
        case .inet:
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &addr.sin_addr)
            return withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .inet6:
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &addr.sin6_addr)
            return withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
