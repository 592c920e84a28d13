import SwitchboardAttachmentStore
import SwitchboardThumbnails
import Synchronization

/// The attachment workers' image inspector: libvips' `Thumbnailer`, one image
/// at a time for the whole process. A hostile image within the pixel bound
/// (a 50 MP interlaced 16-bit PNG of 400 KB) takes about 520 MiB while it is
/// decoded (docs/attachments.md, "Thumbnails"); one at a time keeps that the
/// worst case of the process instead of one per worker. Thumbnails are rare
/// and quick beside uploads (14-130 ms for JPEGs), so the gate costs little.
enum ThumbnailInspector {
    private static let gate = Mutex(())

    static func make(maxPixels: Int) -> ImageInspector {
        { bytes, _ in
            let result = gate.withLock { _ in Thumbnailer.inspect(bytes, maxPixels: maxPixels) }
            switch result {
            case .success(let made):
                return .success(
                    ImageFacts(
                        width: made.width, height: made.height, thumbnail: made.thumbnail,
                        thumbnailType: made.contentType))
            case .failure(let error):
                return .failure(ImageRefusal("the image cannot be processed: \(error.message)"))
            }
        }
    }
}
