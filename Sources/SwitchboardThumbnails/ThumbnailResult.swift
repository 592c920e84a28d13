/// What `Thumbnailer.inspect` learns from an image and the thumbnail it makes of it.
public struct ThumbnailResult: Sendable, Equatable {
    /// The image as it is shown: after its EXIF orientation (a portrait photo stored
    /// sideways with orientation 6 is reported taller than wide, like its thumbnail).
    public var width: Int
    public var height: Int
    /// JPEG, or PNG when the image has an alpha channel; no metadata at all.
    public var thumbnail: [UInt8]
    /// `image/jpeg` or `image/png`.
    public var contentType: String
    public var thumbnailWidth: Int
    public var thumbnailHeight: Int

    public init(
        width: Int, height: Int, thumbnail: [UInt8], contentType: String, thumbnailWidth: Int, thumbnailHeight: Int
    ) {
        self.width = width
        self.height = height
        self.thumbnail = thumbnail
        self.contentType = contentType
        self.thumbnailWidth = thumbnailWidth
        self.thumbnailHeight = thumbnailHeight
    }
}

/// Why an image got no thumbnail. `message` is fit for a log line and for the
/// refusal the uploader sees.
public enum ThumbnailError: Error, Sendable, Equatable {
    /// Not PNG, JPEG, GIF or WebP (the only loaders libvips may run here), or not an image.
    case unsupportedFormat(String)
    /// The header declares more pixels than allowed: refused before any decoding.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The header declares a zero width or height.
    case noPixels
    /// libvips failed (damaged or truncated data, an out-of-range value...): its own message.
    case vips(operation: String, message: String)
    /// libvips could not start (a broken installation).
    case unavailable(String)

    /// Failures whose description is libvips' own error text.
    var carriesLibvipsText: Bool {
        switch self {
        case .vips, .unsupportedFormat: true
        case .tooManyPixels, .noPixels, .unavailable: false
        }
    }

    public var message: String {
        switch self {
        case .unsupportedFormat(let what): "not a PNG, JPEG, GIF or WebP image (\(what))"
        case .tooManyPixels(let width, let height, let limit):
            "the image declares \(width)x\(height) pixels, more than the \(limit) allowed"
        case .noPixels: "the image declares no pixels"
        case .vips(let operation, let message): "\(operation): \(message)"
        case .unavailable(let message): "libvips is unavailable: \(message)"
        }
    }
}
