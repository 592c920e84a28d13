import SwitchboardAuth
import SwitchboardCrypto

/// Builds tokens by hand, independently of `TokenMinter`, so that tests can sign
/// any header and payload text, valid or not.
enum TokenFixture {
    static let secret = "test-secret-0123456789abcdef0123"
    static let now: Int64 = 1_700_000_000
    static let workspace = "3f2c1a9e-8b7d-4c6e-9f10-112233445566"
    static let header = #"{"alg":"HS256","typ":"JWT"}"#
    static let verifier = TokenVerifier(secret: secret, clockSkewSeconds: 0)

    /// The members of a valid payload, as key and raw JSON value text.
    static let validMembers: [(String, String)] = [
        ("sub", #""user-42""#), ("role", #""operator""#), ("workspace_id", "\"\(workspace)\""),
        ("iat", "\(now)"), ("exp", "\(now + 3600)"),
    ]

    /// The valid payload with members replaced or added (value text) or removed (nil).
    static func payload(setting changes: [String: String?] = [:]) -> String {
        var members = validMembers.filter { changes[$0.0] == nil }
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value { members.append((key, value)) }
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    static func encode(_ text: String) -> String { Base64.encodeURLSafe(Array(text.utf8)) }

    /// `header.payload.signature` with a correct HS256 signature over the given texts.
    static func sign(header: String = header, payload: String, secret: String = secret) -> String {
        let input = encode(header) + "." + encode(payload)
        let signature = HMACSHA256.authenticate(message: Array(input.utf8), key: Array(secret.utf8))
        return input + "." + Base64.encodeURLSafe(signature)
    }

    /// A signed token whose payload is the valid one with `changes` applied.
    static func token(setting changes: [String: String?] = [:]) -> String {
        sign(payload: payload(setting: changes))
    }

    /// The error `verify` throws, or nil when it accepts the token.
    static func error(
        _ token: String, verifier: TokenVerifier = verifier, now: Int64 = now
    ) -> TokenError? {
        do {
            _ = try verifier.verify(token, now: now)
            return nil
        } catch {
            return error
        }
    }
}
