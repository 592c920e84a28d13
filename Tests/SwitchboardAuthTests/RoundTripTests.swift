import SwitchboardAuth
import SwitchboardSystem
import Testing

@Suite struct RoundTripTests {
    let claims = TokenClaims(
        subject: "user-42", role: .operator, workspaceID: TokenFixture.workspace, name: "Ada",
        issuedAt: TokenFixture.now, expiresAt: TokenFixture.now + 3600)

    @Test func mintedTokenVerifies() throws {
        let token = TokenMinter.mint(claims, secret: TokenFixture.secret)
        let identity = try TokenFixture.verifier.verify(token, now: TokenFixture.now)
        #expect(
            identity
                == Identity(
                    id: "user-42", role: .operator, workspaceID: TokenFixture.workspace, name: "Ada",
                    expiresAt: TokenFixture.now + 3600))
    }

    @Test(arguments: Role.allCases) func everyRoleRoundTrips(role: Role) throws {
        var claims = claims
        claims.role = role
        claims.name = nil
        claims.notBefore = TokenFixture.now - 10
        let token = TokenMinter.mint(claims, secret: Array(TokenFixture.secret.utf8))
        let identity = try TokenFixture.verifier.verify(token, now: TokenFixture.now)
        #expect(identity.role == role)
        #expect(identity.name == nil)
    }

    /// Computed independently (Python hmac + base64.urlsafe_b64encode, padding stripped).
    @Test func minterMatchesKnownAnswer() {
        let expected =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJzdWIiOiJ1c2VyLTQyIiwicm9sZSI6Im9wZXJhdG9yIiwid29ya3NwYWNlX2lkIjoiM2YyYzFhOWUtOGI3ZC00YzZlLTlmMTAt"
            + "MTEyMjMzNDQ1NTY2IiwibmFtZSI6IkFkYSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwfQ"
            + ".F-UOCb8OL023H3svFH9S7JB8p1boDfCL542GcibaSnk"
        #expect(TokenMinter.mint(claims, secret: TokenFixture.secret) == expected)
    }

    /// The jwt.io example: its signature is right, so verification gets as far as the
    /// claims and stops at the first one it lacks. That error proves the HMAC matched.
    @Test func jwtIOExamplePassesSignatureThenFailsOnClaims() {
        let token =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
            + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        let verifier = TokenVerifier(secret: "your-256-bit-secret", clockSkewSeconds: 0)
        #expect(TokenFixture.error(token, verifier: verifier) == .invalidClaim("role is missing"))
        let other = TokenVerifier(secret: "not-the-secret", clockSkewSeconds: 0)
        #expect(TokenFixture.error(token, verifier: other) == .badSignature)
    }

    @Test func workspaceIDIsLowerCased() throws {
        let token = TokenFixture.token(setting: ["workspace_id": #""3F2C1A9E-8B7D-4C6E-9F10-112233445566""#])
        let identity = try TokenFixture.verifier.verify(token, now: TokenFixture.now)
        #expect(identity.workspaceID == TokenFixture.workspace)
    }

    @Test func stringAndByteSecretsAgree() throws {
        let token = TokenMinter.mint(claims, secret: Array(TokenFixture.secret.utf8))
        #expect(token == TokenMinter.mint(claims, secret: TokenFixture.secret))
        let bytes = TokenVerifier(secret: Array(TokenFixture.secret.utf8), clockSkewSeconds: 0)
        #expect(try bytes.verify(token, now: TokenFixture.now).id == "user-42")
    }

    @Test func nonASCIIClaimsRoundTrip() throws {
        var claims = claims
        claims.subject = "üser/\"42\"\\"
        claims.name = "Zoë 🚀"
        let token = TokenMinter.mint(claims, secret: TokenFixture.secret)
        let identity = try TokenFixture.verifier.verify(token, now: TokenFixture.now)
        #expect(identity.id == claims.subject)
        #expect(identity.name == claims.name)
    }

    @Test func unixClockIsWallClock() {
        // 2023-11-14 .. 2100-01-01: catches a monotonic clock or a unit error.
        let now = UnixClock.nowSeconds()
        #expect(now > 1_700_000_000)
        #expect(now < 4_102_444_800)
    }
}
