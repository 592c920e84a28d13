/// Validates UTF-8 one byte at a time, so that a sequence cut between two pieces
/// of an upload is judged as if it were whole. Well-formed means exactly the
/// sequences of Unicode 15 table 3-7: no overlong forms (C0, C1, E0 80-9F,
/// F0 80-8F), no surrogates (ED A0-BF), nothing past U+10FFFF (F4 90-, F5-FF).
struct UTF8Scanner: Sendable {
    /// Continuation bytes still expected by the sequence in progress.
    private var needed: UInt8 = 0
    /// The range the next continuation byte must fall in (narrower than 80-BF
    /// only right after E0, ED, F0 and F4).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    /// Whether the bytes so far end between two characters.
    var isAtBoundary: Bool { needed == 0 }

    /// Takes one byte; false when it cannot continue a well-formed text.
    @inline(__always)
    mutating func step(_ byte: UInt8) -> Bool {
        if needed == 0 {
            switch byte {
            case 0x00...0x7F: return true
            case 0xC2...0xDF: expect(1, 0x80, 0xBF)
            case 0xE0: expect(2, 0xA0, 0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: expect(2, 0x80, 0xBF)
            case 0xED: expect(2, 0x80, 0x9F)
            case 0xF0: expect(3, 0x90, 0xBF)
            case 0xF1...0xF3: expect(3, 0x80, 0xBF)
            case 0xF4: expect(3, 0x80, 0x8F)
            default: return false
            }
            return true
        }
        guard byte >= low && byte <= high else { return false }
        expect(needed - 1, 0x80, 0xBF)
        return true
    }

    @inline(__always)
    private mutating func expect(_ count: UInt8, _ low: UInt8, _ high: UInt8) {
        needed = count
        self.low = low
        self.high = high
    }
}
