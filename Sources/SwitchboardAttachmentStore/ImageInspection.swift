/// What the inspector learned of an image: its size and, when it made one, a thumbnail.
public struct ImageFacts: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Stored as variant 1; nil: the attachment has no thumbnail.
    public var thumbnail: [UInt8]?
    /// The thumbnail's content type (`image/jpeg`, or `image/png` for images with alpha).
    public var thumbnailType: String

    public init(width: Int, height: Int, thumbnail: [UInt8]?, thumbnailType: String) {
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
        self.thumbnailType = thumbnailType
    }
}

/// Why the inspector will not have an image (a decompression bomb, bytes that do not decode).
public struct ImageRefusal: Error, Sendable, Equatable {
    public var message: String

    public init(_ message: String) { self.message = message }
}

/// Called on an attachment worker with a whole image (the server passes the
/// libvips thumbnailer). It may take its time: it runs off every event loop,
/// one image at a time per worker.
public typealias ImageInspector =
    @Sendable (_ bytes: [UInt8], _ contentType: String) -> Result<ImageFacts, ImageRefusal>
