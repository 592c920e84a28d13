/// Which browser origins may use the gateway (`websocket.allowed_origins`):
/// exact origins such as "https://shop.example", or a host with any port,
/// "http://localhost:*" (for development servers on changing ports). Compared
/// case-insensitively (RFC 6454 6.1: scheme and host are case-insensitive).
/// An empty list allows every origin.
public struct AllowedOrigins: Sendable {
    private let exact: Set<String>
    /// "scheme://host:" prefixes of the entries that end with ":*".
    private let anyPort: [String]

    public init(_ entries: [String]) {
        var exact = Set<String>()
        var anyPort: [String] = []
        for entry in entries.map({ $0.lowercased() }) {
            if entry.hasSuffix(":*") { anyPort.append(String(entry.dropLast())) } else { exact.insert(entry) }
        }
        self.exact = exact
        self.anyPort = anyPort
    }

    public var allowsAll: Bool { exact.isEmpty && anyPort.isEmpty }

    public func allows(_ origin: String) -> Bool {
        if allowsAll { return true }
        let origin = origin.lowercased()
        if exact.contains(origin) { return true }
        return anyPort.contains { prefix in
            origin.hasPrefix(prefix) && !origin.dropFirst(prefix.count).isEmpty
                && origin.dropFirst(prefix.count).allSatisfy { $0.isASCII && $0.isNumber }
        }
    }
}
