import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// The address an accepted connection comes from, as 128 bits with IPv4
/// IPv4-mapped (`::ffff:a.b.c.d`): the form `SwitchboardAdmission.IPAddress`
/// takes, without this module depending on it. Other families (Unix sockets)
/// are all zero.
public struct PeerAddress: Sendable, Equatable {
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    init(_ storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let bits = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                }
            }
            self.init(high: 0, low: 0xffff_0000_0000 | UInt64(bits))
        case AF_INET6:
            let (high, low) = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { bytes -> (UInt64, UInt64) in
                        var high: UInt64 = 0
                        var low: UInt64 = 0
                        for index in 0..<min(16, bytes.count) {
                            if index < 8 {
                                high = high << 8 | UInt64(bytes[index])
                            } else {
                                low = low << 8 | UInt64(bytes[index])
                            }
                        }
                        return (high, low)
                    }
                }
            }
            self.init(high: high, low: low)
        default:
            self.init(high: 0, low: 0)
        }
    }
}

/// A socket `Socket.acceptWithPeer` accepted, and who it is from.
public struct AcceptedSocket: Sendable, Equatable {
    public let fd: Int32
    public let peer: PeerAddress
}
