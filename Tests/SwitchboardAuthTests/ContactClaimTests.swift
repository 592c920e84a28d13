import SwitchboardAuth
import Testing

/// A visitor token's `name`, `email` and `attrs`: the contact the embedding
/// application vouches for, carried by the identity as JSON text.
@Suite struct ContactClaimTests {
    private func identity(_ changes: [String: String?]) throws -> Identity {
        try TokenFixture.verifier.verify(TokenFixture.token(setting: changes), now: TokenFixture.now)
    }

    @Test func aVisitorsSignedClaimsAreItsContact() throws {
        let visitor = try identity([
            "role": #""visitor""#, "name": #""Vera""#, "email": #""vera@example.com""#,
            "attrs": #"{"plan":"pro","orders":12,"vip":true}"#,
        ])
        #expect(
            visitor.contact
                == #"{"name":"Vera","email":"vera@example.com","attrs":{"plan":"pro","orders":12,"vip":true}}"#)
        #expect(
            try identity(["role": #""visitor""#, "email": #""v@example.com""#]).contact == #"{"email":"v@example.com"}"#
        )
        #expect(try identity(["role": #""visitor""#]).contact == nil)
        #expect(try identity(["role": #""visitor""#, "email": "null", "attrs": "{}"]).contact == nil)
        // Staff tokens open no sessions: no contact to carry.
        #expect(try identity(["name": #""Ken""#, "email": #""ken@example.com""#]).contact == nil)
    }

    @Test func malformedContactClaimsRefuseTheToken() {
        for (changes, error) in [
            (["email": "7"], TokenError.invalidClaim("email is not a string")),
            (["email": "\"\(String(repeating: "a", count: 255))\""], .invalidClaim("email is longer than 254 bytes")),
            (["email": #""a\nb@example.com""#], .invalidClaim("email contains control characters")),
            (["attrs": #"["pro"]"#], .invalidClaim("attrs is not an object")),
            (
                ["attrs": "{\"notes\":\"\(String(repeating: "x", count: 3070))\"}"],
                .invalidClaim("attrs is longer than 3072 bytes as JSON")
            ),
        ] as [([String: String?], TokenError)] {
            #expect(throws: error) { try identity(changes) }
        }
    }
}
