/// An IPv4 or IPv6 address as 128 bits; IPv4 is held IPv4-mapped
/// (`::ffff:a.b.c.d`), so one type keys every table and one CIDR check
/// covers both families. Parsing is pure Swift (no `inet_pton`), so the
/// module stays free of C and can be fuzzed directly.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The first 64 bits, network order as an integer (most significant first).
    public let high: UInt64
    /// The last 64 bits.
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// An IPv4 address from its 32 bits (`a << 24 | b << 16 | c << 8 | d`).
    public init(ipv4 bits: UInt32) {
        high = 0
        low = 0xffff_0000_0000 | UInt64(bits)
    }

    /// Sixteen bytes in network order.
    public init<Bytes: Collection>(ipv6 bytes: Bytes) where Bytes.Element == UInt8 {
        precondition(bytes.count == 16)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        self.init(high: high, low: low)
    }

    public var isIPv4: Bool { high == 0 && low >> 32 == 0xffff }
    public var ipv4Bits: UInt32 { UInt32(truncatingIfNeeded: low) }

    /// The key per-address limits count under: an IPv4 address itself, an
    /// IPv6 address's /64 (one subscriber's usual allocation: per address
    /// would let one host take a fresh address for every connection).
    public var limitKey: IPAddress { isIPv4 ? self : IPAddress(high: high, low: 0) }

    public var description: String {
        if isIPv4 {
            let b = ipv4Bits
            return "\(b >> 24).\(b >> 16 & 0xff).\(b >> 8 & 0xff).\(b & 0xff)"
        }
        let groups = (0..<8).map { i -> UInt16 in
            let word = i < 4 ? high : low
            return UInt16(truncatingIfNeeded: word >> (UInt64(3 - i % 4) * 16))
        }
        // RFC 5952: the longest run (of two or more) of zero groups becomes "::".
        var bestStart = -1
        var bestLength = 1
        var i = 0
        while i < 8 {
            if groups[i] == 0 {
                var j = i
                while j < 8 && groups[j] == 0 { j += 1 }
                if j - i > bestLength {
                    bestStart = i
                    bestLength = j - i
                }
                i = j
            } else {
                i += 1
            }
        }
        func hex(_ range: Range<Int>) -> String {
            range.map { String(groups[$0], radix: 16) }.joined(separator: ":")
        }
        guard bestStart >= 0 else { return hex(0..<8) }
        return hex(0..<bestStart) + "::" + hex((bestStart + bestLength)..<8)
    }

    /// Parses dotted IPv4 ("192.0.2.1") or IPv6 text ("2001:db8::1",
    /// "::ffff:192.0.2.1"); no brackets, ports or zone ids.
    public init?(parsing text: Substring) {
        let utf8 = Array(text.utf8)
        if utf8.contains(UInt8(ascii: ":")) {
            guard let parsed = Self.parseIPv6(utf8) else { return nil }
            self = parsed
        } else {
            guard let bits = Self.parseIPv4(utf8[...]) else { return nil }
            self.init(ipv4: bits)
        }
    }

    public init?(parsing text: String) { self.init(parsing: text[...]) }

    /// Four decimal octets, no leading zeros (an ambiguous octal "010" is refused).
    static func parseIPv4(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        var result: UInt32 = 0
        var octets = 0
        var value: UInt32 = 0
        var digits = 0
        var leadingZero = false
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, octets < 3 else { return nil }
                result = result << 8 | value
                octets += 1
                value = 0
                digits = 0
                leadingZero = false
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if leadingZero { return nil }
                if digits == 0 && byte == UInt8(ascii: "0") { leadingZero = true }
                value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
                digits += 1
                guard value <= 255, digits <= 3 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, octets == 3 else { return nil }
        return result << 8 | value
    }

    static func parseIPv6(_ bytes: [UInt8]) -> IPAddress? {
        guard bytes.count >= 2, bytes.count <= 45 else { return nil }
        var head: [UInt16] = []
        var tail: [UInt16] = []
        var sawDoubleColon = false
        var index = 0
        if bytes.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) {
            sawDoubleColon = true
            index = 2
            if index == bytes.count { return IPAddress(high: 0, low: 0) }
        } else if bytes[0] == UInt8(ascii: ":") {
            return nil
        }
        while index < bytes.count {
            // One group, or an embedded IPv4 address as the last 32 bits.
            var end = index
            while end < bytes.count && bytes[end] != UInt8(ascii: ":") { end += 1 }
            let piece = bytes[index..<end]
            if piece.contains(UInt8(ascii: ".")) {
                guard end == bytes.count, let bits = parseIPv4(piece) else { return nil }
                let groups = [UInt16(bits >> 16), UInt16(truncatingIfNeeded: bits)]
                if sawDoubleColon { tail += groups } else { head += groups }
                index = end
                break
            }
            guard !piece.isEmpty, piece.count <= 4 else { return nil }
            var value: UInt16 = 0
            for byte in piece {
                guard let digit = hexValue(byte) else { return nil }
                value = value << 4 | UInt16(digit)
            }
            if sawDoubleColon { tail.append(value) } else { head.append(value) }
            index = end
            guard index < bytes.count else { break }
            // At a ':'. A second one right after is the "::".
            index += 1
            if index < bytes.count && bytes[index] == UInt8(ascii: ":") {
                guard !sawDoubleColon else { return nil }
                sawDoubleColon = true
                index += 1
            } else if index == bytes.count {
                return nil  // a trailing single ':'
            }
        }
        let count = head.count + tail.count
        if sawDoubleColon {
            guard count <= 7 else { return nil }
        } else {
            guard count == 8 else { return nil }
        }
        let groups = head + Array(repeating: 0, count: 8 - count) + tail
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (i, group) in groups.enumerated() {
            if i < 4 { high = high << 16 | UInt64(group) } else { low = low << 16 | UInt64(group) }
        }
        return IPAddress(high: high, low: low)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// An address block ("10.0.0.0/8", "2001:db8::/32"; a bare address is one host).
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    /// Over the 128-bit form: an IPv4 /8 is stored as /104.
    public let prefixLength: Int

    public init?(parsing text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parsing: parts[0]) else { return nil }
        let maximum = address.isIPv4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard parts[1].utf8.count <= 3, let n = Int(parts[1]), n >= 0, n <= maximum else { return nil }
            length = n
        }
        prefixLength = address.isIPv4 ? length + 96 : length
        self.address = Self.masked(address, prefixLength)
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        Self.masked(candidate, prefixLength) == address
    }

    public var description: String {
        address.isIPv4 && prefixLength >= 96 ? "\(address)/\(prefixLength - 96)" : "\(address)/\(prefixLength)"
    }

    static func masked(_ address: IPAddress, _ length: Int) -> IPAddress {
        func mask(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits)) }
        return IPAddress(high: address.high & mask(length), low: address.low & mask(length - 64))
    }
}

/// A list of address blocks (`server.trusted_proxies`, `server.ip_limit_exempt`).
public struct IPNetworkSet: Sendable {
    public let networks: [IPNetwork]

    public init(_ networks: [IPNetwork]) { self.networks = networks }

    /// Parses every entry; the first that is not an address or block is returned as the error.
    public static func parse(_ entries: [String]) -> Result<IPNetworkSet, InvalidNetwork> {
        var networks: [IPNetwork] = []
        for entry in entries {
            guard let network = IPNetwork(parsing: entry) else { return .failure(InvalidNetwork(entry: entry)) }
            networks.append(network)
        }
        return .success(IPNetworkSet(networks))
    }

    public var isEmpty: Bool { networks.isEmpty }

    public func contains(_ address: IPAddress) -> Bool {
        networks.contains { $0.contains(address) }
    }
}

public struct InvalidNetwork: Error, Equatable, CustomStringConvertible {
    public let entry: String
    public var description: String {
        "'\(entry)' is not an IPv4 or IPv6 address or block (e.g. \"10.0.0.0/8\", \"2001:db8::/32\")"
    }
}
