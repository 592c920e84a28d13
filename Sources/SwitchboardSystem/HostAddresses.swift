import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// A host name's addresses, as getaddrinfo gives them for TCP. It blocks on
/// DNS (for seconds, with a slow server): call it from a worker thread, never
/// from an event loop.
public enum HostAddresses {
    /// Why a name gave no address, in getaddrinfo's words.
    public struct LookupError: Error, Sendable, Equatable, CustomStringConvertible {
        public let host: String
        public let reason: String

        public var description: String { "\(host) does not resolve: \(reason)" }
    }

    /// Each IPv4 (4 bytes) and IPv6 (16 bytes) address of `host`, in
    /// getaddrinfo's order, without duplicates.
    public static func resolve(_ host: String) throws(LookupError) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0 else { throw LookupError(host: host, reason: String(cString: gai_strerror(code))) }
        defer { freeaddrinfo(list) }
        var addresses: [[UInt8]] = []
        var entry = list
        while let current = entry {
            if let raw = current.pointee.ai_addr, let bytes = Self.bytes(of: raw, family: current.pointee.ai_family),
                !addresses.contains(bytes)
            {
                addresses.append(bytes)
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }

    /// The address bytes of a `sockaddr_in` or `sockaddr_in6`; nil for other families.
    private static func bytes(of raw: UnsafeMutablePointer<sockaddr>, family: Int32) -> [UInt8]? {
        switch family {
        case AF_INET:
            let address = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self).sin_addr
            return withUnsafeBytes(of: address) { Array($0) }
        case AF_INET6:
            let address = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self).sin6_addr
            return withUnsafeBytes(of: address) { Array($0) }
        default:
            return nil
        }
    }
}
