/// The `code` of an `error` frame (docs/protocol.md, "Errors and close codes"). The raw values are
/// the wire text, so renaming a case is a protocol change.
public enum ChatErrorCode: String, Sendable {
    case badRequest = "bad_request"
    case unauthorized
    case forbidden
    case notFound = "not_found"
    case tooLarge = "too_large"
    case rateLimited = "rate_limited"
    case overloaded
    case unavailable
}

/// A refusal of one client frame, sent back as an `error` frame.
public struct ChatError: Error, Sendable, Equatable {
    public var code: ChatErrorCode
    /// Human-readable; names the offending field or session so a client developer can fix the call.
    public var message: String
    /// The refused frame's `ref`, copied back so the client can match the error to its request.
    public var ref: String?

    public init(_ code: ChatErrorCode, _ message: String, ref: String? = nil) {
        self.code = code
        self.message = message
        self.ref = ref
    }
}
