import SwitchboardWebhooks
import Testing

@Suite struct ResponseHeadTests {
    @Test func keepsShortValidTextAsItIs() {
        #expect(ResponseHead.text(from: Array("{\"ok\":true} é😀".utf8)) == "{\"ok\":true} é😀")
        #expect(ResponseHead.text(from: []) == "")
    }

    @Test func cutsAtTheLimitWithoutHalfACharacter() {
        let ascii = [UInt8](repeating: UInt8(ascii: "a"), count: 5000)
        #expect(ResponseHead.text(from: ascii).utf8.count == 1024)
        // 1023 ASCII bytes, then a 4-byte emoji across the limit: the emoji goes.
        let straddling = [UInt8](repeating: UInt8(ascii: "a"), count: 1023) + Array("😀tail".utf8)
        let text = ResponseHead.text(from: straddling)
        #expect(text == String(repeating: "a", count: 1023))
    }

    @Test func replacesInvalidBytesAndNulAndStillFits() {
        #expect(ResponseHead.text(from: [0x61, 0xFF, 0x00, 0x62]) == "a\u{FFFD}\u{FFFD}b")
        // 1024 invalid bytes become replacement characters of 3 bytes each: only what fits stays.
        let text = ResponseHead.text(from: [UInt8](repeating: 0xFF, count: 4096))
        #expect(text.utf8.count <= 1024)
        #expect(text.utf8.count > 1000)
        #expect(text.allSatisfy { $0 == "\u{FFFD}" })
    }
}
