import CVips

/// The thumbnail's file, copied out of libvips' memory.
struct EncodedThumbnail {
    var bytes: [UInt8]
    var contentType: String

    static func save(_ image: borrowing VipsImageRef) -> Result<EncodedThumbnail, ThumbnailError> {
        let png = image.hasAlpha
        var output: UnsafeMutableRawPointer? = nil
        var count = 0
        let status =
            png
            ? cvips_pngsave_buffer(image.pointer, &output, &count)
            : cvips_jpegsave_buffer(image.pointer, Thumbnailer.jpegQuality, &output, &count)
        defer { if let output { cvips_free(output) } }
        guard status == 0, let output else { return .failure(VipsRuntime.failure(png ? "pngsave" : "jpegsave")) }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: output, count: count))
        return .success(EncodedThumbnail(bytes: bytes, contentType: png ? "image/png" : "image/jpeg"))
    }
}
