import SwitchboardCrypto

/// An endpoint's signing secret in the Standard Webhooks form: `whsec_` and the
/// key's bytes in standard base64. The text is what the API shows once and the
/// outbox stores; the key is what HMAC takes.
///
/// `description` never shows the key, so a secret interpolated into a log line
/// or an error by mistake leaks nothing.
public struct WebhookSecret: Sendable, Equatable, CustomStringConvertible {
    public static let prefix = "whsec_"
    /// What `generate` makes: 256 bits, the HMAC-SHA256 block's worth of strength.
    public static let generatedKeyBytes = 32
    /// The key sizes Standard Webhooks asks for (192 to 512 bits); anything
    /// shorter is too weak to sign with, anything longer no receiver expects.
    public static let acceptedKeyBytes = 24...64

    /// `whsec_...`, exactly as given or generated.
    public let text: String
    /// The decoded key bytes.
    public let key: [UInt8]

    /// A new secret from the system's secure random source.
    public static func generate() -> WebhookSecret {
        let key = SecureRandom.bytes(generatedKeyBytes)
        return WebhookSecret(text: prefix + Base64.encode(key), key: key)
    }

    /// Reads `whsec_` + standard padded base64. The URL-safe alphabet and
    /// missing padding are refused, not tolerated: receivers decode the secret
    /// with their own base64 (Python's `b64decode` silently drops `-` and `_`),
    /// and they must get the very key we sign with.
    public init(parsing text: String) throws(WebhookSecretError) {
        guard text.hasPrefix(Self.prefix) else { throw .missingPrefix }
        let encoded = text.utf8.dropFirst(Self.prefix.utf8.count)
        guard Self.isStandardPaddedBase64(encoded), let key = Base64.decode(Substring(encoded)) else {
            throw .notBase64
        }
        guard Self.acceptedKeyBytes.contains(key.count) else { throw .wrongKeyLength(key.count) }
        self.init(text: text, key: key)
    }

    private init(text: String, key: [UInt8]) {
        self.text = text
        self.key = key
    }

    public var description: String { "\(Self.prefix)<\(key.count)-byte key, redacted>" }

    /// Groups of four characters of the standard alphabet, with `=` only as
    /// the last one or two characters.
    private static func isStandardPaddedBase64(_ bytes: Substring.UTF8View) -> Bool {
        guard !bytes.isEmpty, bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                true
            default: false
            }
        }
    }
}

/// Why a text is not a usable secret. The messages never repeat the text.
public enum WebhookSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing
    case missingPrefix
    case notBase64
    case wrongKeyLength(Int)
    /// OpenSSL could not set up HMAC-SHA256 with the key.
    case cannotSign

    public var description: String {
        switch self {
        case .missing: "the endpoint has no webhook secret"
        case .missingPrefix: "a webhook secret starts with \(WebhookSecret.prefix)"
        case .notBase64: "a webhook secret is \(WebhookSecret.prefix) followed by standard padded base64"
        case .wrongKeyLength(let count):
            "a webhook secret's key is \(WebhookSecret.acceptedKeyBytes.lowerBound) to "
                + "\(WebhookSecret.acceptedKeyBytes.upperBound) bytes, not \(count)"
        case .cannotSign: "OpenSSL could not set up HMAC-SHA256 to sign with the webhook secret"
        }
    }
}
