import SwitchboardWebSocket
import Testing

struct UTF8ValidatorTests {
    static let valid: [[UInt8]] = [
        [], Array("plain ascii that is longer than eight bytes".utf8), Array("κόσμε".utf8),
        Array("Hello-µ@ßöäüàá-UTF-8!!".utf8),
        [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xEF, 0xBF, 0xBF],
        [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF3, 0xBF, 0xBF, 0xBF],
        Array("😀 emoji after ascii run 12345678".utf8),
    ]

    static let invalid: [[UInt8]] = [
        [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF],  // stray continuation, overlong 2-byte
        [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],  // overlong 3-byte
        [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],  // surrogates
        [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],  // overlong 4-byte
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],  // above U+10FFFF
        [0xC2, 0x41], [0xE1, 0x80, 0x41],  // missing continuation
        Array("ascii run first then bad".utf8) + [0xFE],
        [
            0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74,
            0x65, 0x64,
        ],
    ]

    static let truncated: [[UInt8]] = [[0xC2], [0xE0, 0xA0], [0xF0, 0x90, 0x80], Array("abc".utf8) + [0xF4]]

    @Test(arguments: valid)
    func acceptsValid(_ bytes: [UInt8]) {
        #expect(UTF8Validator.isValid(bytes))
        #expect(String(validating: bytes, as: UTF8.self) != nil)
    }

    @Test(arguments: invalid)
    func rejectsInvalid(_ bytes: [UInt8]) {
        #expect(!UTF8Validator.isValid(bytes))
    }

    @Test(arguments: truncated)
    func truncatedIsIncompleteNotFailed(_ bytes: [UInt8]) {
        var validator = UTF8Validator()
        #expect(bytes.withUnsafeBytes { validator.validate($0) })
        #expect(!validator.isComplete)
        #expect(!UTF8Validator.isValid(bytes))
    }

    /// The verdict must not depend on where the input is cut.
    @Test(arguments: valid + invalid + truncated)
    func sameVerdictAtEverySplit(_ bytes: [UInt8]) {
        let expected = UTF8Validator.isValid(bytes)
        for cut in 0...bytes.count {
            var validator = UTF8Validator()
            let ok =
                Array(bytes[..<cut]).withUnsafeBytes { validator.validate($0) }
                && Array(bytes[cut...]).withUnsafeBytes { validator.validate($0) }
            #expect((ok && validator.isComplete) == expected, "cut at \(cut)")
        }
    }

    @Test func failsFastAndStaysFailed() {
        var validator = UTF8Validator()
        #expect(![0x41, 0xFF].withUnsafeBytes { validator.validate($0) })
        #expect(validator.hasFailed)
        #expect(![0x41].withUnsafeBytes { validator.validate($0) })
        validator.reset()
        #expect([0x41].withUnsafeBytes { validator.validate($0) })
    }

    /// A code point or a bad byte at every place of a long ASCII run (the
    /// 32- and 8-byte fast paths, and the bytes after them) is found.
    @Test func longAsciiRunsWithOneOtherByteAnywhere() {
        for length in [31, 32, 33, 40, 64, 79] {
            for place in 0..<length {
                for inserted: [UInt8] in [[0xCE, 0xBA], [0xFF], [0xE1, 0x80]] {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    bytes.replaceSubrange(place..<(place + 1), with: inserted)
                    let expected = String(validating: bytes, as: UTF8.self) != nil
                    #expect(UTF8Validator.isValid(bytes) == expected, "length \(length), \(inserted) at \(place)")
                }
            }
        }
    }

    /// Agrees with the standard library on every 1- and 2-byte input and many 3- and 4-byte ones.
    @Test func agreesWithStandardLibrary() {
        for a in 0...255 {
            for b in 0...255 {
                let bytes = [UInt8(a), UInt8(b)]
                #expect(UTF8Validator.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil))
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20000 {
            let lead = UInt8.random(in: 0xE0...0xF7, using: &generator)
            let bytes = [lead] + (0..<3).map { _ in UInt8.random(in: 0x70...0xC0, using: &generator) }
            #expect(UTF8Validator.isValid(bytes) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
        }
    }
}
