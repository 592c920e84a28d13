// libFuzzer target for the thumbnailer: header check, libvips' PNG, JPEG, GIF and WebP
// loaders, thumbnail and savers. Built with `-sanitize=fuzzer,address -parse-as-library`,
// so this file holds declarations only. Only the Swift side is instrumented: libvips
// and the codec libraries are Debian's builds, so coverage guidance stops at their
// boundary and ASan sees only what reaches Swift-allocated memory.
import Glibc
import SwitchboardThumbnails

/// SB_FUZZ_THUMBNAIL_REPORT=1 prints each input's outcome (for runs over a fixed set of files).
let reportOutcomes = getenv("SB_FUZZ_THUMBNAIL_REPORT") != nil

/// Any input must give a thumbnail within the limits or an error; a crash, a sanitizer
/// report, an image past the limit or a thumbnail larger than the box is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: start, count: count))
    let maxPixels = 4_000_000
    let outcome = Thumbnailer.inspect(bytes, maxPixels: maxPixels, maxSide: 16)
    if reportOutcomes {
        switch outcome {
        case .success(let result):
            report("outcome: thumbnail \(result.width)x\(result.height) \(result.contentType)")
        case .failure(let error):
            report("outcome: error \(error.message.prefix(100))")
        }
    }
    switch outcome {
    case .success(let result):
        precondition(result.width * result.height <= maxPixels, "an image past the pixel limit was decoded")
        precondition(result.thumbnailWidth <= 16 && result.thumbnailHeight <= 16, "thumbnail larger than its box")
        precondition(result.thumbnailWidth <= result.width && result.thumbnailHeight <= result.height, "enlarged")
        precondition(!result.thumbnail.isEmpty, "empty thumbnail")
    case .failure(let error):
        precondition(!error.message.isEmpty, "error without a message")
    }
    return 0
}

/// One line on standard error, unbuffered, so that it stays in order with libFuzzer's own lines.
func report(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}
