import SwitchboardJSON

/// An attachment as the protocol shows it (docs/protocol.md, "Attachments"):
/// in the upload's answer, in a `message` frame, in history. On the wire it
/// carries signed URLs minted at encoding time; stored with its message
/// (`chats.attachments`) it carries none, only whether a thumbnail exists.
public struct AttachmentObject: Sendable, Equatable {
    public var id: String
    public var filename: String
    /// The sniffed media type (`AttachmentType.mediaType`).
    public var contentType: String
    public var size: Int64
    /// Lowercase hex SHA-256 of the file.
    public var sha256: String
    /// Pixels, for images; nil otherwise (then absent from the JSON).
    public var width: Int?
    public var height: Int?
    public var hasThumbnail: Bool

    public init(
        id: String, filename: String, contentType: String, size: Int64, sha256: String, width: Int? = nil,
        height: Int? = nil, hasThumbnail: Bool = false
    ) {
        self.id = id
        self.filename = filename
        self.contentType = contentType
        self.size = size
        self.sha256 = sha256
        self.width = width
        self.height = height
        self.hasThumbnail = hasThumbnail
    }

    /// The protocol's object, with `url` and (when there is a thumbnail)
    /// `thumbnail_url`, both signed to expire at `expires` (Unix seconds):
    /// `{"id":…,"filename":…,"content_type":…,"size":…,"sha256":…,"width":…,"height":…,"url":…,"thumbnail_url":…}`.
    public func appendJSON(to writer: inout JSONWriter, signer: AttachmentURLSigner, expires: Int64) {
        writer.beginObject()
        appendFacts(to: &writer)
        writer.key("url")
        writer.string(signer.path(id: id, variant: .original, expires: expires))
        if hasThumbnail {
            writer.key("thumbnail_url")
            writer.string(signer.path(id: id, variant: .thumbnail, expires: expires))
        }
        writer.endObject()
    }

    /// The stored form: the same object without URLs, with `"thumbnail":true|false`.
    public func appendStoredJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        appendFacts(to: &writer)
        writer.key("thumbnail")
        writer.bool(hasThumbnail)
        writer.endObject()
    }

    /// A list in the stored form, as `decodeList` reads it back.
    public static func storedJSON(_ list: [AttachmentObject]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for object in list { object.appendStoredJSON(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// A stored list (`chats.attachments`, as the gateway wrote it or as PostgreSQL
    /// gives `jsonb` back: members in any order, whitespace anywhere). Nil unless it
    /// is an array of objects each with a string `id`, `filename`, `content_type` and
    /// `sha256`, an integer `size` of at least 0, `width` and `height` absent, null or
    /// integers of at least 0, and a boolean `thumbnail`; other members are ignored.
    public static func decodeList(_ json: String) -> [AttachmentObject]? {
        guard let elements = (try? JSONParser.parse(json))?.arrayValue else { return nil }
        var list: [AttachmentObject] = []
        list.reserveCapacity(elements.count)
        for element in elements {
            guard let object = decodeStored(element) else { return nil }
            list.append(object)
        }
        return list
    }

    private static func decodeStored(_ value: JSONValue) -> AttachmentObject? {
        guard let object = value.objectValue,
            let id = object["id"]?.stringValue,
            let filename = object["filename"]?.stringValue,
            let contentType = object["content_type"]?.stringValue,
            let size = object["size"]?.int64Value, size >= 0,
            let sha256 = object["sha256"]?.stringValue,
            let hasThumbnail = object["thumbnail"]?.boolValue,
            let width = dimension(object["width"]),
            let height = dimension(object["height"])
        else { return nil }
        return AttachmentObject(
            id: id, filename: filename, contentType: contentType, size: size, sha256: sha256, width: width,
            height: height, hasThumbnail: hasThumbnail)
    }

    /// `.some(nil)` when absent or null, `.some(n)` for an integer n >= 0 that fits
    /// `Int`, nil (malformed) for anything else.
    private static func dimension(_ value: JSONValue?) -> Int?? {
        guard let value, !value.isNull else { return .some(nil) }
        guard let number = value.int64Value, number >= 0, let int = Int(exactly: number) else { return nil }
        return .some(int)
    }

    private func appendFacts(to writer: inout JSONWriter) {
        writer.key("id")
        writer.string(id)
        writer.key("filename")
        writer.string(filename)
        writer.key("content_type")
        writer.string(contentType)
        writer.key("size")
        writer.int(size)
        writer.key("sha256")
        writer.string(sha256)
        if let width {
            writer.key("width")
            writer.int(width)
        }
        if let height {
            writer.key("height")
            writer.int(height)
        }
    }
}
