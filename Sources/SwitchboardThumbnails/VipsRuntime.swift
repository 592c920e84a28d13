import CVips

/// libvips started once per process, on first use (a `static let` is initialised
/// exactly once even when several threads reach it together).
enum VipsRuntime {
    static let started: ThumbnailError? = cvips_start() == 0 ? nil : .unavailable(takeError())

    /// Every call runs under it; see `ErrorTextLock`.
    static let errorText = ErrorTextLock()

    /// libvips' error text (with its warnings), taken and cleared in one step under
    /// libvips' own lock. The text is process-wide: it is this call's own only when
    /// the call ran alone under `errorText`, as failures are run again.
    static func takeError() -> String {
        guard let copy = vips_error_buffer_copy() else { return "unknown error" }
        defer { cvips_free(copy) }
        let text = String(cString: copy)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        if lines.count > 4 { lines = Array(lines.prefix(4)) }  // a damaged GIF can say the same thing per frame
        return lines.isEmpty ? "unknown error" : lines.joined(separator: "; ")
    }

    static func failure(_ operation: String) -> ThumbnailError {
        .vips(operation: operation, message: takeError())
    }
}

/// One reference to a libvips image, released when the owner goes away.
struct VipsImageRef: ~Copyable {
    let pointer: UnsafeMutablePointer<VipsImage>

    var width: Int { Int(vips_image_get_width(pointer)) }
    var height: Int { Int(vips_image_get_height(pointer)) }
    var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    /// True when the EXIF orientation turns the image a quarter (5 to 8).
    var orientationSwapsSides: Bool { vips_image_get_orientation_swap(pointer) != 0 }

    func hasField(_ name: String) -> Bool { cvips_has_field(pointer, name) != 0 }

    deinit { cvips_unref(pointer) }
}
