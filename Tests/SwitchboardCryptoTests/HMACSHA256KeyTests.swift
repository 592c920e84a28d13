import SwitchboardCrypto
import Testing

@Suite("HMACSHA256Key")
struct HMACSHA256KeyTests {
    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// RFC 4231 test cases 1, 2 and 6 (a key longer than the block), each
    /// asked twice of one key: the context re-initialized, not spent.
    @Test func rfc4231VectorsAgainAndAgain() throws {
        let cases: [([UInt8], String, String)] = [
            (
                [UInt8](repeating: 0x0b, count: 20), "Hi There",
                "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
            ),
            (
                Array("Jefe".utf8), "what do ya want for nothing?",
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (
                [UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
        ]
        for (key, message, expected) in cases {
            let prepared = try HMACSHA256Key(key: key)
            #expect(hex(try prepared.authenticate(message)) == expected)
            #expect(hex(try prepared.authenticate(message)) == expected)
        }
    }

    /// Parts are the message they make together, cut anywhere (empty parts,
    /// multi-byte characters), and the same as the one-shot's MAC.
    @Test func partsAreTheirConcatenationAndMatchTheOneShot() throws {
        let key = [UInt8](repeating: 7, count: 32)
        let prepared = try HMACSHA256Key(key: key)
        let message = "evt_01J.1614265330.{\"body\":\"héllo ✓ \(String(repeating: "x", count: 600))\"}"
        let whole = HMACSHA256.authenticate(message: Array(message.utf8), key: key)
        let characters = Array(message)
        for cut in [0, 1, 7, 8, 30, characters.count - 1, characters.count] {
            let head = String(characters[..<cut])
            let tail = String(characters[cut...])
            #expect(try prepared.authenticate(head, "", tail) == whole, "cut at \(cut)")
            let bytes = Array(message.utf8)
            let at = Array(head.utf8).count
            #expect(try prepared.authenticate(slices: bytes[..<at], [], bytes[at...]) == whole, "slices cut at \(at)")
        }
        #expect(
            try HMACSHA256Key(key: []).authenticate("x") == HMACSHA256.authenticate(message: Array("x".utf8), key: []))
    }
}
