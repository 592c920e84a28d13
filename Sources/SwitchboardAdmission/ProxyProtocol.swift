/// The PROXY protocol header (HAProxy's proxy-protocol.txt, versions 1 and 2)
/// that a load balancer puts before the client's bytes to say who the client
/// is. Pure: give it the first bytes of a connection, any amount at a time.
public enum ProxyProtocol {
    public enum Result: Equatable, Sendable {
        /// The bytes do not start a PROXY header (they are the client's own).
        case absent
        /// A prefix of a header: call again with more bytes.
        case needMore
        /// Starts like a header but is not a valid one: close the connection.
        case invalid
        /// A whole header of `length` bytes. `source` is the client's address,
        /// or nil for LOCAL / UNKNOWN (the proxy's own connection, a health check).
        case header(source: IPAddress?, length: Int)
    }

    /// Version 1 is one text line of at most 107 bytes, CRLF included.
    public static let maxV1Length = 107
    /// Version 2's address block may carry TLVs; refuse blocks above this.
    public static let maxV2Length = 16 + 1024
    static let v1Prefix = Array("PROXY ".utf8)
    static let v2Signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard let first = bytes.first else { return .needMore }
        if first == v2Signature[0] { return parseV2(bytes) }
        if first == v1Prefix[0] { return parseV1(bytes) }
        return .absent
    }

    public static func parse(_ bytes: [UInt8]) -> Result {
        bytes.withUnsafeBytes { parse($0) }
    }

    private static func matchesPrefix(_ bytes: UnsafeRawBufferPointer, _ signature: [UInt8]) -> Bool? {
        let n = min(bytes.count, signature.count)
        for i in 0..<n where bytes[i] != signature[i] { return false }
        return n == signature.count ? true : nil
    }

    // MARK: Version 1: "PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n"

    private static func parseV1(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard let matched = matchesPrefix(bytes, v1Prefix) else { return .needMore }
        guard matched else { return .absent }
        var end = -1
        for i in 0..<min(bytes.count, maxV1Length) where bytes[i] == UInt8(ascii: "\n") {
            end = i
            break
        }
        if end < 0 { return bytes.count >= maxV1Length ? .invalid : .needMore }
        guard end >= 1, bytes[end - 1] == UInt8(ascii: "\r") else { return .invalid }
        let line = Array(bytes[v1Prefix.count..<(end - 1)])
        let fields = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard let proto = fields.first else { return .invalid }
        let length = end + 1
        switch String(decoding: proto, as: UTF8.self) {
        case "UNKNOWN":
            return .header(source: nil, length: length)  // the rest of the line is ignored
        case "TCP4", "TCP6":
            guard fields.count == 5,
                let source = IPAddress(parsing: String(decoding: fields[1], as: UTF8.self)[...]),
                let destination = IPAddress(parsing: String(decoding: fields[2], as: UTF8.self)[...]),
                isPort(fields[3]), isPort(fields[4])
            else { return .invalid }
            let v4 = proto.elementsEqual("TCP4".utf8)
            guard source.isIPv4 == v4, destination.isIPv4 == v4 else { return .invalid }
            // TCP6 with an IPv4-mapped address is still an address the proxy vouches for.
            return .header(source: source, length: length)
        default:
            return .invalid
        }
    }

    private static func isPort(_ field: ArraySlice<UInt8>) -> Bool {
        guard !field.isEmpty, field.count <= 5, field.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
        if field.count > 1 && field.first == UInt8(ascii: "0") { return false }
        return Int(String(decoding: field, as: UTF8.self))! <= 65535
    }

    // MARK: Version 2: binary, a 16-byte header then the address block

    private static func parseV2(_ bytes: UnsafeRawBufferPointer) -> Result {
        guard let matched = matchesPrefix(bytes, v2Signature) else { return .needMore }
        guard matched else { return .absent }
        guard bytes.count >= 16 else { return .needMore }
        let versionCommand = bytes[12]
        let family = bytes[13]
        let blockLength = Int(bytes[14]) << 8 | Int(bytes[15])
        guard versionCommand >> 4 == 2 else { return .invalid }
        let length = 16 + blockLength
        guard length <= maxV2Length else { return .invalid }
        let command = versionCommand & 0x0F
        guard command <= 1 else { return .invalid }
        guard bytes.count >= length else { return .needMore }
        if command == 0 { return .header(source: nil, length: length) }  // LOCAL
        let block = UnsafeRawBufferPointer(rebasing: bytes[16..<length])
        switch family >> 4 {
        case 1:  // AF_INET: source, destination, ports
            guard block.count >= 12 else { return .invalid }
            let bits = UInt32(block[0]) << 24 | UInt32(block[1]) << 16 | UInt32(block[2]) << 8 | UInt32(block[3])
            return .header(source: IPAddress(ipv4: bits), length: length)
        case 2:  // AF_INET6
            guard block.count >= 36 else { return .invalid }
            return .header(source: IPAddress(ipv6: block[0..<16]), length: length)
        case 0, 3:  // AF_UNSPEC, AF_UNIX: no address to use
            return .header(source: nil, length: length)
        default:
            return .invalid
        }
    }
}

/// `X-Forwarded-For`: the client is the rightmost address that is not one of
/// our trusted proxies (every proxy appends the address it received from, so
/// entries to the left of an untrusted one are whatever the client wrote).
public enum ForwardedFor {
    /// `values` are the header's fields in order (several fields are one
    /// comma-separated list). Nil when there is no entry, or when the walk
    /// meets an entry that is not an address before finding the client.
    public static func client(_ values: [String], trusted: IPNetworkSet) -> IPAddress? {
        var entries: [Substring] = []
        for value in values {
            entries += value.split(separator: ",", omittingEmptySubsequences: false)
        }
        var leftmost: IPAddress?
        for entry in entries.reversed() {
            guard let address = parseEntry(entry) else { return nil }
            if !trusted.contains(address) { return address }
            leftmost = address
        }
        // Every hop was one of ours: the first one is as far as we can see.
        return leftmost
    }

    /// "192.0.2.1", "2001:db8::1", "192.0.2.1:4711", "[2001:db8::1]:4711", with optional spaces.
    static func parseEntry(_ raw: Substring) -> IPAddress? {
        var text = raw.drop { $0 == " " || $0 == "\t" }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.count > 1 && rest.dropFirst().allSatisfy(\.isNumber))
            else { return nil }
            return IPAddress(parsing: text[text.index(after: text.startIndex)..<close])
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isNumber) else { return nil }
            return IPAddress(parsing: text[..<colon])
        }
        return IPAddress(parsing: text)
    }
}
