import SwitchboardWebhooks

/// Where connections go, and which ones a request may reuse.
struct Origin: Hashable {
    var https: Bool
    /// As the URL names it (lower case; an IPv6 literal without brackets).
    var host: String
    var port: Int
}

/// What a request needs of its URL, read once and kept while the URL stays the same.
struct RequestTarget {
    var origin: Origin
    /// The host as an address when the URL writes it as one (no DNS then).
    var literalAddress: TargetAddress?
    /// The request line's target: the path and query as written, "/" when there is none.
    var path: String
    /// The `Host` header's value.
    var hostHeader: String

    /// Throws for a URL the client may not use (not http or https, no host, credentials...).
    init(url text: String) throws(WebhookURLError) {
        let url = try WebhookURL(parsing: text)
        origin = Origin(https: url.scheme == .https, host: url.host, port: url.port)
        literalAddress = url.literalAddress
        let afterScheme = text[text.firstRange(of: "://")!.upperBound...]
        let pathStart = afterScheme.firstIndex { $0 == "/" || $0 == "?" } ?? afterScheme.endIndex
        let rest = afterScheme[pathStart...]
        path = rest.isEmpty ? "/" : rest.hasPrefix("?") ? "/" + rest : String(rest)
        let host = url.literalAddress?.isIPv6 == true ? "[\(url.host)]" : url.host
        hostHeader = url.port == url.scheme.defaultPort ? host : "\(host):\(url.port)"
    }
}
