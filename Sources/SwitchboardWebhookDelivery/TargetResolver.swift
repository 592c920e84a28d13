import SwitchboardSystem
import SwitchboardWebhooks

/// The check the API makes when an endpoint is created or its URL changed:
/// the URL is valid, and every address its host resolves to is one the
/// dispatcher may reach. The dispatcher checks again at each connection (DNS
/// changes); this one answers the admin at once with a reason.
///
/// It blocks on DNS (getaddrinfo): call it from a worker, never from an event loop.
public enum TargetResolver {
    /// The host's addresses, all allowed; throws the first reason to refuse.
    @discardableResult
    public static func check(url text: String, allowPrivate: Bool) throws(TargetCheckError) -> [TargetAddress] {
        let url: WebhookURL
        do throws(WebhookURLError) { url = try WebhookURL(parsing: text) } catch { throw .invalidURL(error) }
        let addresses = if let literal = url.literalAddress { [literal] } else { try resolve(url.host) }
        if let refused = addresses.first(where: { !$0.isAllowed(allowPrivate: allowPrivate) }) {
            throw .refused(refused)
        }
        return addresses
    }

    /// Every address getaddrinfo gives for `host` (TCP), without duplicates.
    static func resolve(_ host: String) throws(TargetCheckError) -> [TargetAddress] {
        let addresses: [TargetAddress]
        do throws(HostAddresses.LookupError) {
            addresses = try HostAddresses.resolve(host).compactMap { TargetAddress(bytes: $0) }
        } catch {
            throw .unresolvable(host: host, reason: error.reason)
        }
        guard !addresses.isEmpty else { throw .unresolvable(host: host, reason: "no IPv4 or IPv6 address") }
        return addresses
    }
}

/// Why an endpoint's URL is refused, phrased for an API's 400 answer.
public enum TargetCheckError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidURL(WebhookURLError)
    case unresolvable(host: String, reason: String)
    /// The host is, or resolves to, an address the dispatcher may not reach.
    case refused(TargetAddress)

    public var description: String {
        switch self {
        case .invalidURL(let error): error.description
        case .unresolvable(let host, let reason): "url host \(host) does not resolve: \(reason)"
        case .refused(let address): WebhookHTTPError.refusedTarget(address).description
        }
    }
}
