/// A decoded frame header (RFC 6455 5.2).
public struct FrameHeader: Equatable, Sendable {
    public var fin: Bool
    public var rsv1: Bool
    public var opcode: WebSocketOpcode
    public var payloadLength: Int
    /// The masking key as read little-endian from the wire, or nil if unmasked.
    public var maskKey: UInt32?

    public init(fin: Bool, rsv1: Bool, opcode: WebSocketOpcode, payloadLength: Int, maskKey: UInt32?) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payloadLength = payloadLength
        self.maskKey = maskKey
    }

    /// Bytes the header occupies: 2, plus 2 or 8 for an extended length, plus 4 for a key.
    /// `secondByte` is the byte holding MASK and the 7-bit length.
    @inlinable
    static func length(secondByte: UInt8) -> Int {
        let length7 = secondByte & 0x7F
        let extended = length7 == 126 ? 2 : (length7 == 127 ? 8 : 0)
        return 2 + extended + (secondByte & 0x80 != 0 ? 4 : 0)
    }

    /// Parses and checks a complete header. `bytes` must hold at least
    /// `length(secondByte:)` bytes. Enforces the stateless rules of RFC 6455 5.2
    /// and 5.5; the session checks the rules that depend on earlier frames.
    static func parse(
        _ bytes: UnsafeRawPointer, requireMask: Bool, maxFrameBytes: Int
    ) throws(WebSocketError)
        -> FrameHeader
    {
        let first = bytes.load(as: UInt8.self)
        let second = bytes.load(fromByteOffset: 1, as: UInt8.self)
        // RFC 6455 5.2: RSV2/RSV3 must be 0 unless an extension defines them; none does here.
        guard first & 0x30 == 0 else { throw .protocolError("reserved bits set") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("reserved opcode")
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        // RFC 6455 5.1: a server must close the connection on an unmasked client frame.
        if requireMask && !masked { throw .protocolError("client frame not masked") }
        var offset = 2
        var payloadLength: Int
        switch second & 0x7F {
        case 126:
            payloadLength = Int(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt16.self)))
            offset = 4
        case 127:
            let wide = UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 2, as: UInt64.self))
            // RFC 6455 5.2: the most significant bit of a 64-bit length must be 0.
            guard wide >> 63 == 0 else { throw .protocolError("64-bit length with high bit set") }
            payloadLength = Int(wide)
            offset = 10
        case let short:
            payloadLength = Int(short)
        }
        if opcode.isControl {
            // RFC 6455 5.5: control frames have at most 125 bytes and are never fragmented.
            guard payloadLength <= 125 else { throw .protocolError("control frame too long") }
            guard fin else { throw .protocolError("fragmented control frame") }
        } else if payloadLength > maxFrameBytes {
            throw .messageTooBig
        }
        let key = masked ? UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) : nil
        return FrameHeader(
            fin: fin, rsv1: first & 0x40 != 0, opcode: opcode, payloadLength: payloadLength, maskKey: key)
    }
}
