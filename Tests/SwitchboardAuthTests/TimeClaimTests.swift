import SwitchboardAuth
import Testing

/// `exp`, `nbf` and `iat` against the injected clock, with and without skew.
@Suite struct TimeClaimTests {
    let now = TokenFixture.now
    let lenient = TokenVerifier(secret: TokenFixture.secret, clockSkewSeconds: 60)

    func token(exp: Int64? = nil, nbf: Int64? = nil, iat: Int64? = nil) -> String {
        var changes: [String: String?] = ["exp": "\(exp ?? now + 3600)", "iat": iat.map { "\($0)" }]
        if let nbf { changes["nbf"] = "\(nbf)" }
        return TokenFixture.token(setting: changes)
    }

    @Test func expiryIsReportedInIdentity() throws {
        let identity = try TokenFixture.verifier.verify(token(exp: now + 5), now: now)
        #expect(identity.expiresAt == now + 5)
    }

    @Test func expiredTokenIsRefused() {
        #expect(TokenFixture.error(token(exp: now - 1)) == .expired)
    }

    /// RFC 7519 4.1.4: refused "on or after" the expiry, so exp == now is expired.
    @Test func expiryInstantItselfIsExpired() {
        #expect(TokenFixture.error(token(exp: now)) == .expired)
        #expect(TokenFixture.error(token(exp: now + 1)) == nil)
    }

    @Test func skewExtendsExpiry() {
        #expect(TokenFixture.error(token(exp: now - 59), verifier: lenient) == nil)
        #expect(TokenFixture.error(token(exp: now - 60), verifier: lenient) == .expired)
    }

    @Test func notBefore() {
        #expect(TokenFixture.error(token(nbf: now + 1)) == .notYetValid)
        #expect(TokenFixture.error(token(nbf: now)) == nil)
        #expect(TokenFixture.error(token(nbf: now - 1)) == nil)
    }

    @Test func skewAllowsEarlyNotBefore() {
        #expect(TokenFixture.error(token(nbf: now + 60), verifier: lenient) == nil)
        #expect(TokenFixture.error(token(nbf: now + 61), verifier: lenient) == .notYetValid)
    }

    @Test func issuedInTheFuture() {
        #expect(TokenFixture.error(token(iat: now + 1)) == .issuedInFuture)
        #expect(TokenFixture.error(token(iat: now)) == nil)
        #expect(TokenFixture.error(token(iat: now + 60), verifier: lenient) == nil)
        #expect(TokenFixture.error(token(iat: now + 61), verifier: lenient) == .issuedInFuture)
    }

    @Test func issuedAtIsOptional() {
        #expect(TokenFixture.error(token(iat: nil)) == nil)
    }

    /// Checked in order exp, nbf, iat.
    @Test func expiryIsCheckedFirst() {
        #expect(TokenFixture.error(token(exp: now - 1, nbf: now + 10, iat: now + 10)) == .expired)
        #expect(TokenFixture.error(token(nbf: now + 10, iat: now + 10)) == .notYetValid)
    }

    /// Extreme values saturate instead of trapping on overflow.
    @Test func extremeTimesDoNotOverflow() {
        let huge = TokenVerifier(secret: TokenFixture.secret, clockSkewSeconds: .max)
        #expect(TokenFixture.error(token(exp: .max), verifier: huge) == nil)
        #expect(TokenFixture.error(token(exp: .min)) == .expired)
        #expect(TokenFixture.error(token(exp: .max, nbf: .max), verifier: huge, now: .max) == .expired)
        #expect(TokenFixture.error(token(exp: .max, nbf: .max, iat: .min), now: .min) == .notYetValid)
    }

    /// The rule the gateway re-applies at every heartbeat: the same as at hello,
    /// and an `exp` near Int64.max (which hello accepts) must not trap there either.
    @Test func isExpiredMatchesVerificationAndSaturates() throws {
        let identity = try lenient.verify(token(exp: .max), now: now)
        #expect(!lenient.isExpired(identity.expiresAt, now: now))
        #expect(!lenient.isExpired(.max, now: .max - 1))
        #expect(lenient.isExpired(now - 60, now: now))
        #expect(!lenient.isExpired(now - 59, now: now))
    }
}
