import SwitchboardWebhooks

/// Why a request got no answer. The texts name hosts, ports, addresses, the
/// system's and OpenSSL's reasons; none can hold a secret, since secrets
/// never reach the HTTP client (only signatures do, in a header).
public enum WebhookHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The host resolved to an address `TargetAddress` does not allow.
    case refusedTarget(TargetAddress)
    case timeout(String)
    case resolve(String)
    case connect(String)
    case tls(String)
    /// A URL the client cannot use (`WebhookURL` should have refused it first).
    case invalidURL(String)
    /// The connection broke, or what came back was not HTTP.
    case transfer(String)
    /// The client could not be set up (no epoll set, no lookup thread), or a header would break the request's lines.
    case setup(String)

    public var description: String {
        switch self {
        case .refusedTarget(let address): "target resolves to a \(address.kind.rawValue) address (\(address))"
        case .timeout(let text), .resolve(let text), .connect(let text), .tls(let text), .invalidURL(let text),
            .transfer(let text), .setup(let text):
            text
        }
    }

    /// The delivery log's and the metrics' name for it.
    public var failure: AttemptFailure {
        switch self {
        case .refusedTarget: .refusedTarget
        case .timeout: .timeout
        case .resolve: .resolveError
        case .connect: .connectError
        case .tls: .tlsError
        case .invalidURL: .invalidEndpoint
        case .transfer, .setup: .transferError
        }
    }
}
