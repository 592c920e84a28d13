/// The kinds of file an attachment may be, named by the media type the gateway
/// serves them with. The type is always the one `ContentSniffer` read from the
/// file's own bytes, never the uploader's `Content-Type`.
public enum AttachmentType: String, CaseIterable, Sendable {
    case png = "image/png"
    case jpeg = "image/jpeg"
    case gif = "image/gif"
    case webp = "image/webp"
    case pdf = "application/pdf"
    case text = "text/plain"

    /// The media type, e.g. `image/png`.
    public var mediaType: String { rawValue }

    /// Images are served inline and get a thumbnail; everything else is a download.
    public var isImage: Bool {
        switch self {
        case .png, .jpeg, .gif, .webp: true
        case .pdf, .text: false
        }
    }

    /// The name people know the type by, for messages ("PNG", "plain text").
    public var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .pdf: "PDF"
        case .text: "plain text"
        }
    }

    /// The type a media type names, case-insensitively and with its parameters
    /// dropped (RFC 9110 8.3.1: `Text/Plain; charset=utf-8` is `text/plain`);
    /// nil for any other media type.
    public init?(mediaType: String) {
        var essence = Substring(mediaType)
        if let semicolon = essence.firstIndex(of: ";") { essence = essence[..<semicolon] }
        let trimmed = essence.trimmingWhitespace().lowercased()
        guard let type = AttachmentType(rawValue: trimmed) else { return nil }
        self = type
    }

    /// Bit `1 << index` of the case in `allCases` (the sniffer keeps its allowed set as a mask).
    var bit: UInt8 {
        switch self {
        case .png: 1 << 0
        case .jpeg: 1 << 1
        case .gif: 1 << 2
        case .webp: 1 << 3
        case .pdf: 1 << 4
        case .text: 1 << 5
        }
    }
}

extension Substring {
    /// Without the optional whitespace (RFC 9110 OWS: space and tab) at either end.
    func trimmingWhitespace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
