/// Client-to-server masking (RFC 6455 5.3): payload byte i is XORed with byte
/// i mod 4 of the 32-bit masking key. Done in place, eight bytes at a time.
public enum WebSocketMask {
    /// XORs `buffer` with `key`, where the buffer starts at payload position
    /// `phase` (mod 4) of its frame, so a payload split across reads unmasks
    /// correctly chunk by chunk.
    ///
    /// - Parameter key: the four key bytes as they appear on the wire, read as a
    ///   little-endian integer (byte 0 in the low bits).
    @inlinable
    public static func apply(key: UInt32, phase: Int, to buffer: UnsafeMutableRawBufferPointer) {
        guard var p = buffer.baseAddress, buffer.count > 0 else { return }
        let shift = UInt32(truncatingIfNeeded: (phase & 3) * 8)
        // Rotate so that the low byte is the key byte for the first payload byte.
        let rotated = shift == 0 ? key : (key >> shift) | (key << (32 - shift))
        let wide = UInt64(rotated) | UInt64(rotated) << 32
        let end = p + buffer.count
        // Explicit little-endian conversions make the word order right on any
        // host; on x86-64 and arm64 they compile to nothing.
        while end - p >= 8 {
            let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
            p.storeBytes(of: (word ^ wide).littleEndian, as: UInt64.self)
            p += 8
        }
        var k = rotated
        while p < end {
            p.storeBytes(of: p.load(as: UInt8.self) ^ UInt8(truncatingIfNeeded: k), as: UInt8.self)
            k = (k >> 8) | (k << 24)
            p += 1
        }
    }
}
