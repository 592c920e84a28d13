/// One file of the browser clients (Web/), compiled into the binary.
public struct WebAsset: Sendable {
    /// The URL path it is served at ("/widget/widget.js"; a folder's index.html at "/console/").
    public let path: String
    public let contentType: String
    public let body: [UInt8]
    /// A strong validator of the content (RFC 9110 8.8.3), quoted.
    public let etag: String

    public init(path: String, contentType: String, text: String) {
        self.path = path
        self.contentType = contentType
        body = Array(text.utf8)
        // FNV-1a over the bytes: the content changes only with a new binary, and
        // any change gives another tag.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in body { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let hex = String(hash, radix: 16)
        etag = "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// A page (its own origin's policies apply to it), as opposed to a script or style sheet.
    public var isDocument: Bool { contentType.hasPrefix("text/html") }
}

/// The browser clients by URL path.
public enum WebAssets {
    public static let byPath: [String: WebAsset] = Dictionary(
        embedded.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
}
