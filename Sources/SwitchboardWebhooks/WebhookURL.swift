/// An endpoint's URL, checked when the API takes it: `http` or `https`, a host,
/// an optional port, nothing that makes the request go somewhere else than it
/// reads (credentials, fragments, odd IPv4 spellings, bytes that a client
/// would trim or escape differently). The path and query are sent as written.
public struct WebhookURL: Sendable, Equatable {
    public enum Scheme: String, Sendable {
        case http, https

        public var defaultPort: Int { self == .http ? 80 : 443 }
    }

    public static let maximumBytes = 2048

    /// The URL as given.
    public let text: String
    public let scheme: Scheme
    /// The host in lower case, an IPv6 literal without its brackets.
    public let host: String
    /// The port written, or the scheme's.
    public let port: Int
    /// The host as an address when it is written as one (then no DNS is involved).
    public let literalAddress: TargetAddress?

    public var isLiteralAddress: Bool { literalAddress != nil }

    public init(parsing text: String) throws(WebhookURLError) {
        guard text.utf8.count <= Self.maximumBytes else {
            throw WebhookURLError("is longer than \(Self.maximumBytes) bytes")
        }
        if let bad = text.utf8.first(where: { $0 <= 0x20 || $0 >= 0x7f }) {
            throw WebhookURLError(
                bad >= 0x80
                    ? "has a non-ASCII character: write the host in punycode and percent-encode the path"
                    : "has a space or a control character")
        }
        guard let schemeEnd = text.firstRange(of: "://"),
            let scheme = Scheme(rawValue: text[..<schemeEnd.lowerBound].lowercased())
        else { throw WebhookURLError("must start with http:// or https://") }
        guard !text.contains("#") else { throw WebhookURLError("has a fragment (#...), which is never sent") }
        let rest = text[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard !authority.contains("@") else {
            throw WebhookURLError("has credentials (user@host): put secrets in the path or query, not the authority")
        }
        let (host, address, portText) = try Self.splitAuthority(authority)
        self.text = text
        self.scheme = scheme
        self.host = host
        self.literalAddress = address
        self.port = try portText.map(Self.parsePort) ?? scheme.defaultPort
    }

    /// Host, its address when it is a literal, and the port's text if any.
    private static func splitAuthority(
        _ authority: Substring
    ) throws(WebhookURLError) -> (
        String, TargetAddress?, Substring?
    ) {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw WebhookURLError("has an unclosed [IPv6] host")
            }
            let inside = authority[authority.index(after: authority.startIndex)..<close]
            guard let address = TargetAddress(parsing: inside), address.isIPv6 else {
                throw WebhookURLError("has an invalid IPv6 address in brackets (zones such as %eth0 are not allowed)")
            }
            let after = authority[authority.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { throw WebhookURLError("has text after its [IPv6] host") }
            return (address.description, address, after.isEmpty ? nil : after.dropFirst())
        }
        let parts = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let host = parts[0].lowercased()
        let portText = parts.count == 2 ? parts[1] : nil
        if let address = TargetAddress(parsing: host), !address.isIPv6 { return (host, address, portText) }
        try checkHostName(host)
        return (host, nil, portText)
    }

    private static func parsePort(_ text: Substring) throws(WebhookURLError) -> Int {
        guard (1...5).contains(text.count), text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let port = Int(text),
            (1...65535).contains(port)
        else { throw WebhookURLError("has an invalid port (1 to 65535)") }
        return port
    }

    /// DNS labels of letters, digits, `-` and `_`; a last label that is all
    /// digits (or looks like hex) would make the host an IPv4 address to a
    /// browser or libcurl, in a spelling we do not accept.
    private static func checkHostName(_ host: String) throws(WebhookURLError) {
        guard !host.isEmpty else { throw WebhookURLError("has no host") }
        guard host.utf8.count <= 253 else { throw WebhookURLError("has a host name longer than 253 bytes") }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.utf8.count),
                label.utf8.allSatisfy({ byte in
                    (97...122).contains(byte) || (48...57).contains(byte) || byte == 45 || byte == 95
                })
            else { throw WebhookURLError("has an invalid host name '\(host)'") }
        }
        let last = labels[labels.count - 1]
        if last.allSatisfy(\.isNumber) || (last.hasPrefix("0x") && last.dropFirst(2).allSatisfy(\.isHexDigit)) {
            throw WebhookURLError("has a host '\(host)' that is neither a name nor an IPv4 address a.b.c.d")
        }
    }
}

/// Why a URL is refused, phrased to follow "url " in an API's 400 answer.
public struct WebhookURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { "url \(reason)" }
}
