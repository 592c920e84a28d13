import CVips

/// What the header alone says: libvips images are lazy, so opening one decodes no pixel.
struct ImageHeader {
    var width: Int
    var height: Int
    var swapsSides: Bool

    static func read(_ start: UnsafeRawPointer, _ count: Int) -> Result<ImageHeader, ThumbnailError> {
        guard let opened = cvips_image_new_from_buffer(start, count) else {
            return .failure(VipsRuntime.failure("header"))
        }
        let image = VipsImageRef(pointer: opened)
        // Loaders open the first page only (their default n=1), so height is one frame's.
        return .success(ImageHeader(width: image.width, height: image.height, swapsSides: image.orientationSwapsSides))
    }
}
