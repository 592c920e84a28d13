/// Why a token was refused. Descriptions are safe to log: they name the rule that
/// failed, never the token, the secret or a claim's value.
public enum TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not three unpadded base64url parts, JSON that does not parse, a header we do not
    /// understand, or a token over `TokenVerifier.maxTokenBytes`.
    case malformed(String)
    /// The header's `alg` is not `HS256` (`none` included). The value is cut to a short,
    /// printable excerpt because it comes from the client.
    case unsupportedAlgorithm(String)
    case badSignature
    /// `now >= exp + skew` (RFC 7519 4.1.4: the token must not be accepted on or after `exp`).
    case expired
    /// `now + skew < nbf` (RFC 7519 4.1.5).
    case notYetValid
    /// `iat > now + skew`: a token from the future means a skewed or forged issuer.
    case issuedInFuture
    /// A required claim is missing, or a claim has the wrong type or form.
    case invalidClaim(String)

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed token: \(reason)"
        case .unsupportedAlgorithm(let alg): "unsupported token algorithm \"\(alg)\" (only HS256 is accepted)"
        case .badSignature: "token signature does not match"
        case .expired: "token has expired"
        case .notYetValid: "token is not valid yet (nbf)"
        case .issuedInFuture: "token was issued in the future (iat)"
        case .invalidClaim(let reason): "invalid token claim: \(reason)"
        }
    }

    /// `.unsupportedAlgorithm` for a client-supplied `alg`, kept short and printable so
    /// that logging the error cannot flood or corrupt a log line.
    static func unsupportedAlgorithm(excerptOf alg: String) -> TokenError {
        let limit = 32
        var excerpt = ""
        for scalar in alg.unicodeScalars.prefix(limit) {
            excerpt.unicodeScalars.append(scalar.value >= 0x20 && scalar.value < 0x7F ? scalar : "?")
        }
        if alg.unicodeScalars.count > limit { excerpt += "..." }
        return .unsupportedAlgorithm(excerpt)
    }
}
