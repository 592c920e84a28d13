/// Incremental UTF-8 validator (RFC 3629, as RFC 6455 8.1 requires for text
/// messages). State carries across calls, so a code point may be split across
/// frames or reads; validation fails on the first byte that can never be part
/// of valid UTF-8 ("fail fast", as Autobahn 6.x checks), and `isComplete` tells
/// whether the input so far ends on a code-point boundary.
///
/// Runs of ASCII are checked 32 bytes at a time, then eight.
public struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current code point; 0xFF after a failure.
    private var remaining: UInt8 = 0
    /// The allowed range of the next continuation byte: narrower than 80...BF
    /// right after E0, ED, F0 and F4, which excludes overlong forms, surrogates
    /// and code points above U+10FFFF (RFC 3629 4).
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    public init() {}

    /// True when everything validated so far is valid and ends between code points.
    public var isComplete: Bool { remaining == 0 }

    /// True once an invalid byte has been seen (until `reset`).
    public var hasFailed: Bool { remaining == 0xFF }

    public mutating func reset() {
        remaining = 0
        lower = 0x80
        upper = 0xBF
    }

    /// Validates the next chunk; false as soon as a byte is invalid.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard remaining != 0xFF else { return false }
        guard var p = bytes.baseAddress, bytes.count > 0 else { return true }
        let end = p + bytes.count
        var remaining = self.remaining
        var lower = self.lower
        var upper = self.upper
        while p < end {
            if remaining == 0 {
                // ASCII fast path: a word with no high bit set is eight ASCII bytes;
                // four words are tested at once while there are that many.
                while end - p >= 32 {
                    let words =
                        p.loadUnaligned(as: UInt64.self) | p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                        | p.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
                        | p.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
                    if words & 0x8080_8080_8080_8080 != 0 { break }
                    p += 32
                }
                while end - p >= 8 {
                    if p.loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                    p += 8
                }
                if p == end { break }
                let byte = p.load(as: UInt8.self)
                p += 1
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: (remaining, lower, upper) = (1, 0x80, 0xBF)
                case 0xE0: (remaining, lower, upper) = (2, 0xA0, 0xBF)  // no overlong 3-byte forms
                case 0xE1...0xEC, 0xEE, 0xEF: (remaining, lower, upper) = (2, 0x80, 0xBF)
                case 0xED: (remaining, lower, upper) = (2, 0x80, 0x9F)  // no UTF-16 surrogates
                case 0xF0: (remaining, lower, upper) = (3, 0x90, 0xBF)  // no overlong 4-byte forms
                case 0xF1...0xF3: (remaining, lower, upper) = (3, 0x80, 0xBF)
                case 0xF4: (remaining, lower, upper) = (3, 0x80, 0x8F)  // nothing above U+10FFFF
                default:  // 80...C1 (stray continuation, overlong 2-byte), F5...FF
                    self.remaining = 0xFF
                    return false
                }
            } else {
                let byte = p.load(as: UInt8.self)
                p += 1
                guard byte >= lower && byte <= upper else {
                    self.remaining = 0xFF
                    return false
                }
                remaining -= 1
                lower = 0x80
                upper = 0xBF
            }
        }
        self.remaining = remaining
        self.lower = lower
        self.upper = upper
        return true
    }

    /// Validates a complete text in one go.
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isComplete
    }

    public static func isValid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { isValid($0) }
    }
}
