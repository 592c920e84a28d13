/// Why an upload's bytes were refused (HTTP 415). `message` is for the uploader;
/// `Finding` says what was seen, for logs and tests.
public enum SniffRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file has no bytes.
    case empty
    /// The bytes are none of the `allowed` types (in `AttachmentType.allCases` order).
    case notAllowed(allowed: [AttachmentType], found: Finding)
    /// The bytes are `sniffed`, but the uploader declared another type.
    case mismatch(sniffed: AttachmentType, declared: String)

    /// What the sniffer saw in a file it refused as not allowed.
    public enum Finding: Equatable, Sendable {
        /// A type the sniffer knows, but not one of the allowed.
        case type(AttachmentType)
        /// Text whose first character (after a byte order mark and whitespace) is `<`:
        /// HTML, SVG or XML, which a browser might run.
        case markup
        /// A NUL byte at this offset: binary data, or UTF-16 text.
        case nulByte(offset: Int64)
        /// The first byte at this offset that makes the file invalid UTF-8
        /// (an overlong form, a surrogate, a code point past U+10FFFF, a stray
        /// continuation byte, or a sequence cut off by the end of the file).
        case invalidUTF8(offset: Int64)
        /// No magic number of an allowed type, and plain text is not allowed.
        case unrecognized
    }

    /// For the uploader, e.g. "the file is not one of the allowed types (PNG, JPEG, plain text)".
    public var message: String {
        switch self {
        case .empty:
            return "the file is empty"
        case .notAllowed(let allowed, _):
            let names = allowed.map(\.displayName).joined(separator: ", ")
            return "the file is not one of the allowed types (\(names))"
        case .mismatch(let sniffed, let declared):
            return "the file's bytes are \(sniffed.mediaType), not the declared \(declared)"
        }
    }

    public var description: String { message }
}
