/// How one HTTP attempt ended, as the dispatcher saw it.
public enum AttemptResult: Sendable, Equatable {
    /// A status line came back. It decides, whatever happened to the body
    /// after it (cut at the reading limit, slow, reset).
    case answered(statusCode: Int, responseHead: String)
    /// No status line: why, and a message for the delivery log.
    case noAnswer(AttemptFailure, message: String)
}

/// Why an attempt got no answer.
public enum AttemptFailure: String, Sendable, CaseIterable {
    case timeout
    case resolveError = "resolve_error"
    case connectError = "connect_error"
    /// The host resolved to an address the dispatcher may not connect to.
    case refusedTarget = "refused_target"
    case tlsError = "tls_error"
    /// The endpoint's URL or secret cannot be used (they are checked when an
    /// endpoint is saved, so this is a stored row gone wrong).
    case invalidEndpoint = "invalid_endpoint"
    /// The connection broke or the answer was not HTTP.
    case transferError = "transfer_error"
}

/// The metric label of an attempt: `success`, `http_error` for any other
/// status (redirects included: they are not followed), or the failure's name.
public enum AttemptOutcomeKind: Hashable, Sendable, CustomStringConvertible {
    case success
    case httpError
    case failure(AttemptFailure)

    public init(_ result: AttemptResult) {
        switch result {
        case .answered(let status, _): self = (200...299).contains(status) ? .success : .httpError
        case .noAnswer(let failure, _): self = .failure(failure)
        }
    }

    public static let allCases: [AttemptOutcomeKind] = [.success, .httpError] + AttemptFailure.allCases.map(failure)

    public var description: String {
        switch self {
        case .success: "success"
        case .httpError: "http_error"
        case .failure(let failure): failure.rawValue
        }
    }
}
