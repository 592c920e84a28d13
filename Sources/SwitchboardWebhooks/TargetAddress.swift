/// An address a webhook would connect to, and whether it may: a receiver must
/// be somewhere on the internet, not the gateway's own machine, its private
/// network or the cloud's metadata service (169.254.169.254), which an admin
/// who can create endpoints could otherwise probe through us.
public struct TargetAddress: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        case publicAddress = "public"
        case loopback
        /// RFC 1918, carrier-grade NAT (100.64/10), unique local (fc00::/7), site-local (fec0::/10).
        case privateNetwork = "private"
        case linkLocal = "link-local"
        case multicast
        /// 0/8, 240/4 (with the broadcast address), `::`: nothing a TCP connection should reach.
        case reserved
    }

    /// 4 bytes (IPv4) or 16 (IPv6), in network order.
    public let bytes: [UInt8]

    /// nil unless `bytes` holds 4 or 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public var isIPv6: Bool { bytes.count == 16 }

    public var kind: Kind {
        isIPv6 ? Self.kindOfIPv6(bytes) : Self.kindOfIPv4(bytes[0], bytes[1])
    }

    /// Public addresses always; loopback, private and link-local ones only with
    /// `allowPrivate` (`webhooks.allow_private_targets`: development and tests).
    /// Multicast and reserved ones never: no receiver can be there.
    public func isAllowed(allowPrivate: Bool) -> Bool {
        switch kind {
        case .publicAddress: true
        case .loopback, .privateNetwork, .linkLocal: allowPrivate
        case .multicast, .reserved: false
        }
    }

    /// Only the first two bytes decide an IPv4 address's kind.
    private static func kindOfIPv4(_ a: UInt8, _ b: UInt8) -> Kind {
        switch (a, b) {
        case (0, _), (240...255, _): .reserved
        case (127, _): .loopback
        case (10, _), (172, 16...31), (192, 168), (100, 64...127): .privateNetwork
        case (169, 254): .linkLocal
        case (224...239, _): .multicast
        default: .publicAddress
        }
    }

    private static func kindOfIPv6(_ bytes: [UInt8]) -> Kind {
        // An IPv6 address that carries an IPv4 one reaches that IPv4 address
        // (through the kernel's mapping, a NAT64 gateway or a 6to4 relay), so
        // it is what the IPv4 address is.
        if let inner = embeddedIPv4(bytes) { return kindOfIPv4(inner[inner.startIndex], inner[inner.startIndex + 1]) }
        if bytes.allSatisfy({ $0 == 0 }) { return .reserved }
        if bytes.dropLast().allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return .loopback }
        switch (bytes[0], bytes[1]) {
        case (0xfc...0xfd, _), (0xfe, 0xc0...0xff): return .privateNetwork
        case (0xfe, 0x80...0xbf): return .linkLocal
        case (0xff, _): return .multicast
        default: return .publicAddress
        }
    }

    /// The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible
    /// (`::a.b.c.d`, but not `::` or `::1`), NAT64 (`64:ff9b::/96`) or 6to4
    /// (`2002:AABB:CCDD::/48`) address.
    static func embeddedIPv4(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let firstTen = bytes[0..<10]
        if firstTen.allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff { return bytes[12..<16] }
        let isNotUnspecifiedNorLoopback = bytes[12..<15].contains(where: { $0 != 0 }) || bytes[15] > 1
        if bytes[0..<12].allSatisfy({ $0 == 0 }) && isNotUnspecifiedNorLoopback {
            return bytes[12..<16]
        }
        if bytes[0..<4] == [0x00, 0x64, 0xff, 0x9b] && bytes[4..<12].allSatisfy({ $0 == 0 }) { return bytes[12..<16] }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return bytes[2..<6] }
        return nil
    }
}
