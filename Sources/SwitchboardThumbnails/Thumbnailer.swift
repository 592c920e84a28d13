import CVips

/// Thumbnails of uploaded images through libvips, bounded before anything is decoded.
///
/// Safe to call from several threads at once; each call is independent (libvips'
/// cache is off) and runs its pipeline with one libvips worker thread.
public enum Thumbnailer {
    /// JPEG quality of photo thumbnails.
    static let jpegQuality: Int32 = 80

    /// Reads the header of `bytes` (PNG, JPEG, GIF or WebP; the first page of an
    /// animation), refuses it when it declares more than `maxPixels` pixels or none,
    /// and only then decodes it into a thumbnail of at most `maxSide` on its longer
    /// side (never enlarged), upright by its EXIF orientation, in sRGB, with every
    /// piece of metadata stripped: JPEG, or PNG when the image has an alpha channel.
    public static func inspect(
        _ bytes: [UInt8], maxPixels: Int, maxSide: Int = 400
    )
        -> Result<ThumbnailResult, ThumbnailError>
    {
        precondition(maxPixels > 0 && maxSide > 0 && maxSide <= Int(Int32.max), "limits must be positive")
        if let failure = VipsRuntime.started { return .failure(failure) }
        guard !bytes.isEmpty else { return .failure(.unsupportedFormat("no bytes")) }
        let first = VipsRuntime.errorText.shared { inspectOnce(bytes, maxPixels: maxPixels, maxSide: maxSide) }
        guard case .failure(let error) = first, error.carriesLibvipsText else { return first }
        // The text in libvips' one buffer may be a neighbour's, or gone to a neighbour's
        // clearing: the failure is run again with nothing beside it. Only damaged input
        // pays for this, and its decode is bounded by `maxPixels` like the first.
        return VipsRuntime.errorText.alone {
            vips_error_clear()
            return inspectOnce(bytes, maxPixels: maxPixels, maxSide: maxSide)
        }
    }

    private static func inspectOnce(
        _ bytes: [UInt8], maxPixels: Int, maxSide: Int
    ) -> Result<
        ThumbnailResult, ThumbnailError
    > {
        defer {
            // A failure took its text already; what is left is a success's warnings, which
            // must not be blamed on the next failure.
            vips_error_clear()
            // Per-thread buffers libvips keeps for the calling thread: freed after every
            // call so that worker threads that come and go leak nothing.
            vips_thread_shutdown()
            // A decode frees tens or hundreds of MB in the arenas of libvips' worker
            // threads; glibc keeps them resident, so that calls on other arenas add up
            // (a 50 MP image: 190 MiB peak for one call, up to 430 after five). Given back
            // at once, the peak stays that of one call.
            cvips_release_free_memory()
        }
        return bytes.withUnsafeBytes { buffer in
            inspect(buffer, maxPixels: maxPixels, maxSide: Int32(maxSide))
        }
    }

    /// libvips reads `buffer` in place: every image made from it is released before this returns.
    private static func inspect(
        _ buffer: UnsafeRawBufferPointer, maxPixels: Int, maxSide: Int32
    )
        -> Result<ThumbnailResult, ThumbnailError>
    {
        let start = buffer.baseAddress!
        guard let loader = vips_foreign_find_load_buffer(start, buffer.count) else {
            return .failure(.unsupportedFormat(VipsRuntime.takeError()))
        }
        guard cvips_loader_allowed(loader) != 0 else {
            return .failure(.unsupportedFormat(String(cString: loader)))
        }
        let header: ImageHeader
        switch ImageHeader.read(start, buffer.count) {
        case .success(let read): header = read
        case .failure(let error): return .failure(error)
        }
        guard header.width > 0, header.height > 0 else { return .failure(.noPixels) }
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        guard !overflow, pixels <= maxPixels else {
            return .failure(.tooManyPixels(width: header.width, height: header.height, limit: maxPixels))
        }

        guard let made = cvips_thumbnail_buffer(start, buffer.count, maxSide) else {
            return .failure(VipsRuntime.failure("thumbnail"))
        }
        let thumbnail = VipsImageRef(pointer: made)
        let (thumbnailWidth, thumbnailHeight) = (thumbnail.width, thumbnail.height)
        return EncodedThumbnail.save(thumbnail).map { saved in
            ThumbnailResult(
                width: header.swapsSides ? header.height : header.width,
                height: header.swapsSides ? header.width : header.height,
                thumbnail: saved.bytes, contentType: saved.contentType,
                thumbnailWidth: thumbnailWidth, thumbnailHeight: thumbnailHeight)
        }
    }
}
