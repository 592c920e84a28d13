/// Addresses as text: the literal hosts of endpoint URLs, and addresses in
/// error messages. Strict on purpose: `127.1`, `0x7f.0.0.1` and `017.0.0.1`
/// all reach 127.0.0.1 through some parsers, so anything but four plain
/// decimal numbers is not an IPv4 address here (and `WebhookURL` refuses it).
extension TargetAddress {
    /// Dotted decimal IPv4 or RFC 4291 IPv6 (with `::` and a trailing dotted
    /// IPv4 part); no brackets, no zone (`%eth0`).
    public init?(parsing text: some StringProtocol) {
        let text = Substring(text)
        guard let bytes = text.contains(":") ? Self.parseIPv6(text) : Self.parseIPv4(text) else { return nil }
        self.init(bytes: bytes)
    }

    /// `10.0.0.1`, or IPv6 as RFC 5952 writes it (`fe80::1`, `::ffff:10.0.0.1`).
    public var description: String {
        guard isIPv6 else { return bytes.map(String.init).joined(separator: ".") }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return "::ffff:" + bytes[12..<16].map(String.init).joined(separator: ".")
        }
        let groups = (0..<8).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
        // The longest run of two or more zero groups (the first of equals) becomes "::".
        var best: Range<Int>? = nil
        var start: Int? = nil
        for index in 0...8 {
            if index < 8 && groups[index] == 0 {
                if start == nil { start = index }
            } else if let from = start {
                if index - from >= 2 && index - from > (best?.count ?? 0) { best = from..<index }
                start = nil
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard let run = best else { return hex.joined(separator: ":") }
        return hex[..<run.lowerBound].joined(separator: ":") + "::" + hex[run.upperBound...].joined(separator: ":")
    }

    static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                part.count == 1 || part.first != "0", let value = UInt8(part)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        let halves = text.split(separator: "::", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count <= 2, !halves.contains(where: { $0.contains("::") }) else { return nil }
        guard let head = parseGroups(halves[0], allowsIPv4Tail: halves.count == 1) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = parseGroups(halves[1], allowsIPv4Tail: true), head.count + tail.count <= 14 else {
            return nil
        }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// Colon-separated groups of one to four hex digits, the last possibly a
    /// dotted IPv4 address (two groups' worth); empty text is no groups.
    private static func parseGroups(_ text: Substring, allowsIPv4Tail: Bool) -> [UInt8]? {
        if text.isEmpty { return [] }
        let groups = text.split(separator: ":", omittingEmptySubsequences: false)
        var bytes: [UInt8] = []
        for (index, group) in groups.enumerated() {
            if index == groups.count - 1 && allowsIPv4Tail && group.contains(".") {
                guard let ipv4 = parseIPv4(group) else { return nil }
                bytes += ipv4
            } else {
                guard (1...4).contains(group.count), group.allSatisfy(\.isHexDigit),
                    let value = UInt16(group, radix: 16)
                else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
        }
        return bytes.count <= 16 ? bytes : nil
    }
}
