import SwitchboardAuth
import Testing

/// Errors end up in logs: they must never carry the token or the secret.
@Suite struct TokenErrorDescriptionTests {
    @Test func descriptionsLeakNeitherTokenNorSecret() throws {
        let secretSubject = "subject-value-that-must-not-be-logged"
        let tokens = [
            TokenFixture.token(setting: ["exp": "\(TokenFixture.now - 1)", "sub": "\"\(secretSubject)\""]),
            TokenFixture.sign(payload: TokenFixture.payload(), secret: "wrong"),
            TokenFixture.token(setting: ["role": #""root""#, "sub": "\"\(secretSubject)\""]),
            TokenFixture.token(setting: ["sub": "\"\(String(repeating: "s", count: 200))\""]),
            TokenFixture.sign(payload: "[]"),
            TokenFixture.token() + ".",
            String(repeating: "A", count: 9000),
        ]
        for token in tokens {
            let error = try #require(TokenFixture.error(token))
            let text = error.description
            #expect(!text.isEmpty)
            #expect(!text.contains(TokenFixture.secret))
            #expect(!text.contains(token))
            #expect(!text.contains(secretSubject))
            for part in token.split(separator: ".") where part.count > 8 {
                #expect(!text.contains(part))
            }
        }
    }

    @Test func everyCaseHasADescription() {
        let errors: [TokenError] = [
            .malformed("x"), .unsupportedAlgorithm("none"), .badSignature, .expired, .notYetValid,
            .issuedInFuture, .invalidClaim("y"),
        ]
        #expect(Set(errors.map(\.description)).count == errors.count)
        #expect(TokenError.expired.description == "token has expired")
    }

    /// A client-chosen alg is cut short and made printable before it reaches a log line.
    @Test func longOrUnprintableAlgorithmIsExcerpted() {
        let long = String(repeating: "Z", count: 500)
        let token = TokenFixture.sign(header: #"{"alg":"\#(long)"}"#, payload: "{}")
        #expect(TokenFixture.error(token) == .unsupportedAlgorithm(String(repeating: "Z", count: 32) + "..."))

        let control = TokenFixture.sign(header: #"{"alg":"HS\n256\u001b[31m"}"#, payload: "{}")
        #expect(TokenFixture.error(control) == .unsupportedAlgorithm("HS?256?[31m"))
    }
}
