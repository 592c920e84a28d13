import SwitchboardAuth
import Testing

@Suite struct MalformedTokenTests {
    static let parts = TokenFixture.token().split(separator: ".").map(String.init)
    static let header = parts[0]
    static let payload = parts[1]
    static let signature = parts[2]

    static let structural: [(String, String)] = [
        ("", "token does not have three parts"),
        (header, "token does not have three parts"),
        (header + "." + payload, "token does not have three parts"),
        (header + "." + payload + "." + signature + "." + signature, "token does not have three parts"),
        (header + "." + payload + "." + signature + ".", "token does not have three parts"),
        ("." + payload + "." + signature, "header is not base64url"),
        (header + ".." + signature, "payload is not base64url"),
        (header + "." + payload + ".", "signature is not base64url"),
        (header + "=." + payload + "." + signature, "header is not base64url"),
        (header + "." + payload + "." + signature + "=", "signature is not base64url"),
        (header + "." + payload + "+." + signature, "payload is not base64url"),
        (header + "." + payload + "/." + signature, "payload is not base64url"),
        (" " + header + "." + payload + "." + signature, "header is not base64url"),
        (header + "." + payload + "." + signature + "\n", "signature is not base64url"),
        (header + "." + payload + "é." + signature, "payload is not base64url"),
        // One character cannot encode a byte (length % 4 == 1).
        (header + "." + payload + "A." + signature, "payload is not base64url"),
        // "eyJ" + "9" has non-zero left-over bits: not the canonical spelling.
        (header + "." + payload + "." + String(signature.dropLast()) + "l", "signature is not base64url"),
    ]

    @Test(arguments: structural) func structureIsChecked(token: String, reason: String) {
        #expect(TokenFixture.error(token) == .malformed(reason))
    }

    @Test(arguments: [
        ("{", "header is not valid JSON"),
        (#"["alg","HS256"]"#, "header is not a JSON object"),
        (#""HS256""#, "header is not a JSON object"),
        (#"{"alg":"HS256",}"#, "header is not valid JSON"),
    ])
    func headerMustBeAJSONObject(header: String, reason: String) {
        let token = TokenFixture.sign(header: header, payload: TokenFixture.payload())
        #expect(TokenFixture.error(token) == .malformed(reason))
    }

    @Test(arguments: [
        ("{not json", "payload is not valid JSON"),
        ("[1,2,3]", "payload is not a JSON object"),
        ("null", "payload is not a JSON object"),
        (#"{"sub":"a"} {}"#, "payload is not valid JSON"),
    ])
    func signedPayloadMustBeAJSONObject(payload: String, reason: String) {
        let token = TokenFixture.sign(payload: payload)
        #expect(TokenFixture.error(token) == .malformed(reason))
    }

    @Test func oversizeTokenIsRefusedBeforeDecoding() {
        // Correctly signed, but one byte over the cap.
        let base = TokenFixture.token(setting: ["pad": #""""#]).utf8.count
        let filler = String(repeating: "x", count: 100)
        var padding = ""
        var token = ""
        repeat {
            padding += filler
            token = TokenFixture.token(setting: ["pad": "\"\(padding)\""])
        } while token.utf8.count <= TokenVerifier.maxTokenBytes
        #expect(base < TokenVerifier.maxTokenBytes)
        #expect(TokenFixture.error(token) == .malformed("token is longer than 8192 bytes"))

        let garbage = String(repeating: "A", count: TokenVerifier.maxTokenBytes + 1)
        #expect(TokenFixture.error(garbage) == .malformed("token is longer than 8192 bytes"))
    }
}
