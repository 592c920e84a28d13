import SwitchboardAuth
import SwitchboardCrypto
import Testing

@Suite struct SignatureTests {
    @Test func validTokenVerifies() {
        #expect(TokenFixture.error(TokenFixture.token()) == nil)
    }

    @Test func tamperedPayloadIsRefused() {
        let token = TokenFixture.token()
        let parts = token.split(separator: ".").map(String.init)
        let forged = TokenFixture.encode(TokenFixture.payload(setting: ["role": #""admin""#]))
        #expect(TokenFixture.error(parts[0] + "." + forged + "." + parts[2]) == .badSignature)
    }

    @Test func tamperedSignatureIsRefused() {
        var bytes = Array(TokenFixture.token().utf8)
        // The first signature character carries only whole bits, so flipping it stays canonical.
        let index = bytes.lastIndex(of: UInt8(ascii: "."))! + 1
        bytes[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(TokenFixture.error(String(decoding: bytes, as: UTF8.self)) == .badSignature)
    }

    @Test func truncatedSignatureIsRefused() {
        let token = TokenFixture.token()
        let parts = token.split(separator: ".").map(String.init)
        let short = Base64.encodeURLSafe(Array(Base64.decode(parts[2])!.prefix(16)))
        #expect(TokenFixture.error(parts[0] + "." + parts[1] + "." + short) == .badSignature)
    }

    @Test func wrongSecretIsRefused() {
        let token = TokenFixture.sign(payload: TokenFixture.payload(), secret: "another-secret")
        #expect(TokenFixture.error(token) == .badSignature)
    }

    /// The payload is not parsed before the signature is checked.
    @Test func unsignedGarbagePayloadIsABadSignature() {
        let good = TokenFixture.token().split(separator: ".").map(String.init)
        let token = good[0] + "." + TokenFixture.encode("{not json") + "." + good[2]
        #expect(TokenFixture.error(token) == .badSignature)
    }

    @Test(arguments: ["none", "None", "HS512", "HS384", "RS256", "ES256", "hs256", "HS256 ", ""])
    func otherAlgorithmsAreUnsupported(alg: String) {
        let header = #"{"alg":"\#(alg)","typ":"JWT"}"#
        let signed = TokenFixture.sign(header: header, payload: TokenFixture.payload())
        #expect(TokenFixture.error(signed) == .unsupportedAlgorithm(alg))
    }

    /// RFC 7519 6.1: an unsecured JWT has an empty signature part.
    @Test func unsecuredTokenIsUnsupported() {
        let token =
            TokenFixture.encode(#"{"alg":"none"}"#) + "." + TokenFixture.encode(TokenFixture.payload()) + "."
        #expect(TokenFixture.error(token) == .unsupportedAlgorithm("none"))
    }

    @Test(arguments: [
        (#"{"typ":"JWT"}"#, "header has no alg"),
        (#"{"alg":256}"#, "header alg is not a string"),
        (#"{"alg":null}"#, "header alg is not a string"),
        (#"{"alg":"HS256","typ":"JWS"}"#, "header typ is not JWT"),
        (#"{"alg":"HS256","typ":1}"#, "header typ is not a string"),
        (#"{"alg":"HS256","crit":["exp"]}"#, "header has crit extensions"),
        (#"{"alg":"HS256","crit":[]}"#, "header has crit extensions"),
        (#"{"alg":"HS256","b64":false,"crit":["b64"]}"#, "header has crit extensions"),
        (#"{"alg":"HS256","alg":"HS256"}"#, "header is not valid JSON"),
    ])
    func badHeadersAreMalformed(header: String, reason: String) {
        let token = TokenFixture.sign(header: header, payload: TokenFixture.payload())
        #expect(TokenFixture.error(token) == .malformed(reason))
    }

    @Test(arguments: [#"{"alg":"HS256","typ":"jwt"}"#, #"{"alg":"HS256"}"#, #"{"kid":"k1","alg":"HS256"}"#])
    func acceptableHeaders(header: String) {
        let token = TokenFixture.sign(header: header, payload: TokenFixture.payload())
        #expect(TokenFixture.error(token) == nil)
    }
}
