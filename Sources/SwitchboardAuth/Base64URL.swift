/// Strict base64url decoding for JWS compact serialization (RFC 7515 2 and
/// appendix C: the URL-safe alphabet of RFC 4648 5 with all padding omitted).
///
/// `Base64.decode` in SwitchboardCrypto is lenient (either alphabet, optional
/// padding); a token must have exactly one spelling, so this decoder refuses `=`,
/// `+`, `/`, whitespace, and any non-zero bits left over in the last character
/// (RFC 4648 3.5), which would otherwise let one signature be written several ways.
enum Base64URL {
    /// The decoded bytes, or nil when `text` is empty or not canonical unpadded base64url.
    static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard !text.isEmpty, text.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for c in text {
            guard let value = sextet(c) else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Left-over bits are encoder padding and must be zero in canonical output.
        guard accumulator == 0 else { return nil }
        return out
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
