/// Frame encoding (RFC 6455 5.2). Server frames are unmasked; a mask key is
/// accepted so tests and tools can build client frames with the same code.
///
/// `encode` returns one array holding the whole frame, so a message fanned out
/// to many connections is encoded once and the same bytes shared.
public enum FrameEncoder {
    /// The longest header: 2 bytes, an 8-byte length and a 4-byte mask key.
    public static let maxHeaderLength = 14

    /// RFC 6455 5.2: lengths up to 125 fit in 7 bits, up to 65535 take 16 more
    /// bits, anything longer 64.
    @inlinable
    public static func headerLength(payloadLength: Int, masked: Bool = false) -> Int {
        let base = payloadLength <= 125 ? 2 : (payloadLength <= 0xFFFF ? 4 : 10)
        return masked ? base + 4 : base
    }

    /// Writes a frame header at the start of `buffer` (which must hold
    /// `headerLength(payloadLength:masked:)` bytes) and returns its length.
    @discardableResult
    public static func writeHeader(
        opcode: WebSocketOpcode, fin: Bool = true, rsv1: Bool = false, payloadLength: Int, maskKey: UInt32? = nil,
        into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        let length = headerLength(payloadLength: payloadLength, masked: maskKey != nil)
        precondition(buffer.count >= length, "header buffer too small")
        let p = buffer.baseAddress!
        p.storeBytes(of: (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | opcode.rawValue, as: UInt8.self)
        let maskBit: UInt8 = maskKey != nil ? 0x80 : 0
        var offset = 2
        if payloadLength <= 125 {
            p.storeBytes(of: maskBit | UInt8(payloadLength), toByteOffset: 1, as: UInt8.self)
        } else if payloadLength <= 0xFFFF {
            p.storeBytes(of: maskBit | 126, toByteOffset: 1, as: UInt8.self)
            p.storeBytes(of: UInt16(payloadLength).bigEndian, toByteOffset: 2, as: UInt16.self)
            offset = 4
        } else {
            p.storeBytes(of: maskBit | 127, toByteOffset: 1, as: UInt8.self)
            p.storeBytes(of: UInt64(payloadLength).bigEndian, toByteOffset: 2, as: UInt64.self)
            offset = 10
        }
        if let key = maskKey { p.storeBytes(of: key.littleEndian, toByteOffset: offset, as: UInt32.self) }
        return length
    }

    /// One complete frame: header followed by the payload (masked with
    /// `maskKey` when given).
    public static func encode(
        opcode: WebSocketOpcode, fin: Bool = true, rsv1: Bool = false, payload: UnsafeRawBufferPointer,
        maskKey: UInt32? = nil
    ) -> [UInt8] {
        let header = headerLength(payloadLength: payload.count, masked: maskKey != nil)
        return [UInt8](unsafeUninitializedCapacity: header + payload.count) { out, count in
            let raw = UnsafeMutableRawBufferPointer(out)
            writeHeader(
                opcode: opcode, fin: fin, rsv1: rsv1, payloadLength: payload.count, maskKey: maskKey, into: raw)
            if let source = payload.baseAddress, payload.count > 0 {
                (raw.baseAddress! + header).copyMemory(from: source, byteCount: payload.count)
                if let key = maskKey {
                    WebSocketMask.apply(key: key, phase: 0, to: UnsafeMutableRawBufferPointer(rebasing: raw[header...]))
                }
            }
            count = header + payload.count
        }
    }

    public static func encode(
        opcode: WebSocketOpcode, fin: Bool = true, rsv1: Bool = false, payload: [UInt8], maskKey: UInt32? = nil
    ) -> [UInt8] {
        payload.withUnsafeBytes { encode(opcode: opcode, fin: fin, rsv1: rsv1, payload: $0, maskKey: maskKey) }
    }

    /// A close frame (RFC 6455 5.5.1): the code, then the reason cut to fit the
    /// 125-byte control limit at a code-point boundary. Code nil sends an empty body.
    public static func encodeClose(code: UInt16?, reason: String = "", maskKey: UInt32? = nil) -> [UInt8] {
        guard let code else { return encode(opcode: .close, payload: [], maskKey: maskKey) }
        var body: [UInt8] = [UInt8(code >> 8), UInt8(code & 0xFF)]
        body.append(contentsOf: CloseFrame.truncatedReason(reason, maxBytes: 123))
        return encode(opcode: .close, payload: body, maskKey: maskKey)
    }
}
