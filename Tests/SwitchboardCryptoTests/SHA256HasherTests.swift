import SwitchboardCrypto
import Testing

@Suite("SHA256.Hasher")
struct SHA256HasherTests {
    func hex(of pieces: [[UInt8]]) -> String {
        let hasher = SHA256.Hasher()
        for piece in pieces { hasher.update(piece) }
        return hasher.finalizeHex()
    }

    // FIPS 180-2 appendix B and the empty message.
    @Test func knownVectors() {
        #expect(hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(of: [Array("abc".utf8)]) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            hex(of: [Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)])
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func oneMillionAsInPiecesOf1000() {
        let piece = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        #expect(
            hex(of: Array(repeating: piece, count: 1000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// 300 bytes crossing several 64-byte blocks, cut at every offset and at every
    /// pair of offsets 7 apart; the digest was computed with Python's hashlib.
    @Test func splitAtEveryOffsetGivesTheOneShotDigest() {
        let data = (0..<300).map { UInt8(($0 * 37 + 11) % 256) }
        let expected = "9b854f0a59eabeac0b0ecaee1f5cd7ab3bfbc93e9b33e2a89ac338b237f300f2"
        #expect(SHA256.hex(SHA256.hash(data)) == expected)
        for cut in 0...data.count {
            #expect(hex(of: [Array(data[..<cut]), Array(data[cut...])]) == expected, "cut at \(cut)")
        }
        for cut in 0...(data.count - 7) {
            let pieces = [Array(data[..<cut]), Array(data[cut..<(cut + 7)]), Array(data[(cut + 7)...])]
            #expect(hex(of: pieces) == expected, "cut at \(cut) and \(cut + 7)")
        }
        #expect(hex(of: data.map { [$0] }) == expected)
    }

    @Test func emptyPiecesChangeNothing() {
        #expect(hex(of: [[], Array("ab".utf8), [], Array("c".utf8), []]) == hex(of: [Array("abc".utf8)]))
    }

    @Test func rawBufferUpdateMatchesArrayUpdate() {
        let hasher = SHA256.Hasher()
        let bytes: [UInt8] = Array("abc".utf8)
        bytes.withUnsafeBytes { hasher.update($0) }
        #expect(hasher.finalize() == SHA256.hash(bytes))
    }

    @Test func hexIsLowercaseTwoDigitsPerByte() {
        #expect(SHA256.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(SHA256.hex([]) == "")
        #expect(SHA256.hexDigest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
