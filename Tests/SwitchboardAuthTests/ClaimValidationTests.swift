import SwitchboardAuth
import Testing

/// One payload change and the error it must cause.
struct ClaimCase: Sendable, CustomTestStringConvertible {
    var changes: [String: String?]
    var error: TokenError
    var testDescription: String { "\(changes) -> \(error)" }

    init(_ changes: [String: String?], _ error: TokenError) {
        self.changes = changes
        self.error = error
    }
}

@Suite struct ClaimValidationTests {
    static let invalid: [ClaimCase] = [
        ClaimCase(["sub": nil], .invalidClaim("sub is missing")),
        ClaimCase(["sub": #""""#], .invalidClaim("sub is empty")),
        ClaimCase(["sub": "\"\(String(repeating: "a", count: 129))\""], .invalidClaim("sub is longer than 128 bytes")),
        // 43 three-byte characters: 43 characters but 129 bytes.
        ClaimCase(["sub": "\"\(String(repeating: "€", count: 43))\""], .invalidClaim("sub is longer than 128 bytes")),
        ClaimCase(["sub": "42"], .invalidClaim("sub is not a string")),
        ClaimCase(["sub": "null"], .invalidClaim("sub is not a string")),
        ClaimCase(["sub": #""a\u0000b""#], .invalidClaim("sub contains control characters")),
        ClaimCase(["sub": #""a\nb""#], .invalidClaim("sub contains control characters")),
        ClaimCase(["sub": #""a\u009bb""#], .invalidClaim("sub contains control characters")),
        ClaimCase(["role": nil], .invalidClaim("role is missing")),
        ClaimCase(["role": #""superuser""#], .invalidClaim("role is not visitor, operator or admin")),
        ClaimCase(["role": #""Admin""#], .invalidClaim("role is not visitor, operator or admin")),
        ClaimCase(["role": #"["admin"]"#], .invalidClaim("role is not a string")),
        ClaimCase(["workspace_id": nil], .invalidClaim("workspace_id is missing")),
        ClaimCase(["workspace_id": "7"], .invalidClaim("workspace_id is not a string")),
        ClaimCase(
            ["workspace_id": #""3f2c1a9e8b7d4c6e9f10112233445566""#], .invalidClaim("workspace_id is not a UUID")),
        ClaimCase(
            ["workspace_id": #""{3f2c1a9e-8b7d-4c6e-9f10-112233445566}""#], .invalidClaim("workspace_id is not a UUID")),
        ClaimCase(
            ["workspace_id": #""3f2c1a9e-8b7d-4c6e-9f10-11223344556g""#], .invalidClaim("workspace_id is not a UUID")),
        ClaimCase(
            ["workspace_id": #""3f2c1a9e-8b7d-4c6e-9f1011-2233445566""#], .invalidClaim("workspace_id is not a UUID")),
        ClaimCase(
            ["workspace_id": #""3f2c1a9e-8b7d-4c6e-9f10-11223344556""#], .invalidClaim("workspace_id is not a UUID")),
        ClaimCase(["workspace_id": #""""#], .invalidClaim("workspace_id is not a UUID")),
        ClaimCase(["name": "5"], .invalidClaim("name is not a string")),
        ClaimCase(
            ["name": "\"\(String(repeating: "n", count: 129))\""], .invalidClaim("name is longer than 128 bytes")),
        ClaimCase(["name": #""Ada\u0000""#], .invalidClaim("name contains control characters")),
        ClaimCase(["exp": nil], .invalidClaim("exp is missing")),
        ClaimCase(["exp": #""1700003600""#], .invalidClaim("exp is not an integer")),
        ClaimCase(["exp": "1700003600.5"], .invalidClaim("exp is not an integer")),
        ClaimCase(["exp": "1700003600.0"], .invalidClaim("exp is not an integer")),
        ClaimCase(["exp": "1.7e9"], .invalidClaim("exp is not an integer")),
        ClaimCase(["exp": "9223372036854775808"], .invalidClaim("exp is not an integer")),
        ClaimCase(["exp": "null"], .invalidClaim("exp is not an integer")),
        ClaimCase(["exp": "true"], .invalidClaim("exp is not an integer")),
        ClaimCase(["nbf": #""0""#], .invalidClaim("nbf is not an integer")),
        ClaimCase(["iat": "1700000000.25"], .invalidClaim("iat is not an integer")),
        ClaimCase(["iat": "null"], .invalidClaim("iat is not an integer")),
    ]

    @Test(arguments: invalid) func invalidClaimIsRefused(_ claim: ClaimCase) {
        #expect(TokenFixture.error(TokenFixture.token(setting: claim.changes)) == claim.error)
    }

    @Test func subjectAtTheLimitIsAccepted() throws {
        let ascii = String(repeating: "a", count: 128)
        let twoByte = String(repeating: "é", count: 64)
        for subject in [ascii, twoByte] {
            let token = TokenFixture.token(setting: ["sub": "\"\(subject)\""])
            #expect(try TokenFixture.verifier.verify(token, now: TokenFixture.now).id == subject)
        }
    }

    @Test func nameIsOptionalAndMayBeNull() throws {
        for value: String? in [nil, "null"] {
            let token = TokenFixture.token(setting: ["name": value])
            #expect(try TokenFixture.verifier.verify(token, now: TokenFixture.now).name == nil)
        }
        let named = TokenFixture.token(setting: ["name": #""Grace \"G\" Hopper""#])
        #expect(try TokenFixture.verifier.verify(named, now: TokenFixture.now).name == #"Grace "G" Hopper"#)
    }

    @Test func unknownClaimsAreIgnored() {
        let token = TokenFixture.token(setting: [
            "iss": #""https://idp.example""#, "aud": #"["a","b"]"#, "extra": #"{"nested":[1,2,{"x":null}]}"#,
            "jti": "12345",
        ])
        #expect(TokenFixture.error(token) == nil)
    }

    /// RFC 8259 leaves duplicate names undefined; refusing them stops "role":"visitor",
    /// "role":"admin" from meaning different things to different parsers.
    @Test func duplicateClaimIsMalformed() {
        let payload = TokenFixture.payload().dropLast() + #","role":"admin"}"#
        let token = TokenFixture.sign(payload: String(payload))
        #expect(TokenFixture.error(token) == .malformed("payload is not valid JSON"))
    }
}
