/// The RFC 6455 frame layout as the client side needs it: parse server
/// frames (never masked) and build masked client frames.
enum FrameHeader {
    struct Parsed {
        var fin: Bool
        var opcode: UInt8
        var payloadStart: Int
        var payloadEnd: Int
    }

    /// The frame starting at `offset`, or nil when it has not fully arrived.
    static func parse(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Parsed? {
        let available = bytes.count - offset
        guard available >= 2 else { return nil }
        let first = bytes[offset]
        let lengthByte = bytes[offset + 1] & 0x7F
        var headerLength = 2
        var length: Int
        switch lengthByte {
        case 126:
            headerLength = 4
            guard available >= headerLength else { return nil }
            length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        case 127:
            headerLength = 10
            guard available >= headerLength else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | Int(bytes[offset + index]) }
        default:
            length = Int(lengthByte)
        }
        guard available - headerLength >= length else { return nil }
        let start = offset + headerLength
        return Parsed(fin: first & 0x80 != 0, opcode: first & 0x0F, payloadStart: start, payloadEnd: start + length)
    }

    static func appendMasked(opcode: UInt8, payload: UnsafeRawBufferPointer, maskKey: UInt32, to frame: inout [UInt8]) {
        frame.append(0x80 | opcode)
        let count = payload.count
        if count < 126 {
            frame.append(0x80 | UInt8(count))
        } else if count <= 0xFFFF {
            frame.append(0x80 | 126)
            frame.append(UInt8(count >> 8))
            frame.append(UInt8(count & 0xFF))
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((count >> shift) & 0xFF)) }
        }
        withUnsafeBytes(of: maskKey.bigEndian) { mask in
            frame.append(contentsOf: mask)
            for index in 0..<count { frame.append(payload[index] ^ mask[index & 3]) }
        }
    }
}
