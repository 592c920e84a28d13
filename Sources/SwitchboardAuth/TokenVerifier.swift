import SwitchboardCrypto

/// Verifies HS256 JSON Web Tokens (RFC 7519, JWS compact serialization of RFC 7515)
/// and turns their claims into an `Identity`.
///
/// Order of work: size cap, structure and header, signature, then claims. Nothing in
/// the payload is parsed before the signature has been checked, so a forger only ever
/// reaches the header parser and HMAC.
public struct TokenVerifier: Sendable {
    /// Tokens longer than this are refused before any decoding (real ones are < 1 KiB).
    public static let maxTokenBytes = 8192

    private let secret: [UInt8]
    private let clockSkewSeconds: Int64

    /// `secret` must not be empty: an empty HMAC key lets anyone who guesses that sign
    /// tokens. RFC 7518 3.2 asks for at least 32 bytes; callers (configuration) should enforce it.
    /// `clockSkewSeconds` (>= 0) is tolerated in each direction on `exp`, `nbf` and `iat`.
    public init(secret: [UInt8], clockSkewSeconds: Int64) {
        precondition(!secret.isEmpty, "the token secret must not be empty")
        precondition(clockSkewSeconds >= 0, "clock skew must not be negative")
        self.secret = secret
        self.clockSkewSeconds = clockSkewSeconds
    }

    /// The secret is the UTF-8 bytes of `secret`.
    public init(secret: String, clockSkewSeconds: Int64) {
        self.init(secret: Array(secret.utf8), clockSkewSeconds: clockSkewSeconds)
    }

    /// `now`: seconds since the epoch (injected so tests control the clock).
    public func verify(_ token: String, now: Int64) throws(TokenError) -> Identity {
        guard token.utf8.count <= Self.maxTokenBytes else {
            throw .malformed("token is longer than \(Self.maxTokenBytes) bytes")
        }
        let bytes = Array(token.utf8)

        // RFC 7515 7.1: BASE64URL(header) "." BASE64URL(payload) "." BASE64URL(signature).
        var dots: [Int] = []
        for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count > 2 { break }
        }
        guard dots.count == 2 else { throw .malformed("token does not have three parts") }
        let headerPart = bytes[..<dots[0]]
        let payloadPart = bytes[(dots[0] + 1)..<dots[1]]
        let signaturePart = bytes[(dots[1] + 1)...]

        // The header first, so that an "alg":"none" token (empty signature part) is
        // reported as the unsupported algorithm it is rather than as a bad encoding.
        guard let header = Base64URL.decode(headerPart) else { throw .malformed("header is not base64url") }
        try JOSEHeader.validate(header)
        guard let payload = Base64URL.decode(payloadPart) else { throw .malformed("payload is not base64url") }
        guard let signature = Base64URL.decode(signaturePart) else {
            throw .malformed("signature is not base64url")
        }

        // RFC 7515 5.2 step 8 / RFC 7518 3.2: HMAC over the ASCII of the first two
        // parts as sent, compared in constant time so a forger learns nothing per byte.
        let expected = HMACSHA256.authenticate(message: bytes[..<dots[1]], key: secret)
        guard HMACSHA256.constantTimeEqual(expected, signature) else { throw .badSignature }

        let claims = try TokenPayload(parsing: payload)
        try checkTimes(claims, now: now)
        return Identity(
            id: claims.subject, role: claims.role, workspaceID: claims.workspaceID, name: claims.name,
            expiresAt: claims.expiresAt, contact: claims.verifiedContact)
    }

    /// Whether a token that expires at `expiresAt` is no longer valid at `now`
    /// (RFC 7519 4.1.4: not accepted "on or after" exp, hence >=). The one
    /// expiry rule: checked at `hello` and again while the connection lives.
    public func isExpired(_ expiresAt: Int64, now: Int64) -> Bool {
        now >= Self.adding(expiresAt, clockSkewSeconds)
    }

    /// Saturating arithmetic: a hostile `exp` near Int64.max must not trap the process.
    private func checkTimes(_ claims: TokenPayload, now: Int64) throws(TokenError) {
        if isExpired(claims.expiresAt, now: now) { throw .expired }
        // RFC 7519 4.1.5: not accepted "before" nbf; nbf itself is valid.
        if let nbf = claims.notBefore, Self.adding(now, clockSkewSeconds) < nbf { throw .notYetValid }
        // RFC 7519 4.1.6 only records iat; a future iat means a broken or forged issuer.
        if let iat = claims.issuedAt, iat > Self.adding(now, clockSkewSeconds) { throw .issuedInFuture }
    }

    private static func adding(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }
}
