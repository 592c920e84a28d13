import Testing

@testable import SwitchboardThumbnails

/// Damaged, truncated, foreign or random bytes: an error, never a crash or a thumbnail of nothing.
struct BrokenInputTests {
    static let limit = 50_000_000
    static let fixtures = ["photo-gps.jpg", "alpha.png", "animated.gif", "photo.webp", "small.jpg"]

    @Test(arguments: fixtures) func truncatedImageIsAnError(_ name: String) {
        let whole = TestImages.fixture(name)
        // Only an animation's first frame is read: cut within it.
        let end = name.hasSuffix(".gif") ? TestImages.gifFirstFrameEnd(whole) : whole.count
        for cut in [8, 16, 32, 64, end / 4, end / 2, end - 64] {
            let result = Thumbnailer.inspect(Array(whole.prefix(cut)), maxPixels: Self.limit)
            #expect(result.failure != nil, "\(name) cut at \(cut) of \(whole.count) gave a thumbnail")
        }
    }

    /// A GIF cut after its first frame still gives that frame: the rest is never decoded.
    @Test func gifCutAfterItsFirstFrameGivesThatFrame() throws {
        let whole = TestImages.fixture("animated.gif")
        let end = TestImages.gifFirstFrameEnd(whole)
        #expect(end < whole.count / 2)
        let expected = try #require(Thumbnailer.inspect(whole, maxPixels: Self.limit).success)
        let cut = try #require(Thumbnailer.inspect(Array(whole.prefix(end + 1)), maxPixels: Self.limit).success)
        // (libnsgif gives every page an alpha band when any frame has transparency, as this
        // file's later, delta-coded frames do: its whole form is PNG, its first frame alone JPEG.)
        #expect(expected.contentType == "image/png" && cut.contentType == "image/jpeg")
        #expect(
            [cut.width, cut.height, cut.thumbnailWidth, cut.thumbnailHeight]
                == [expected.width, expected.height, expected.thumbnailWidth, expected.thumbnailHeight])
    }

    @Test func garbageIsUnsupported() {
        var generator = SystemRandomNumberGenerator()
        for count in [1, 7, 100, 10_000] {
            let noise = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            guard case .failure(let error) = Thumbnailer.inspect(noise, maxPixels: Self.limit) else {
                Issue.record("\(count) random bytes gave a thumbnail")
                continue
            }
            #expect(!error.message.isEmpty)
        }
        #expect(Thumbnailer.inspect([], maxPixels: Self.limit).failure == .unsupportedFormat("no bytes"))
        #expect(Thumbnailer.inspect(Array("hello, world".utf8), maxPixels: Self.limit).failure != nil)
    }

    /// A signature followed by noise reaches the right loader, which must fail cleanly.
    @Test func signatureThenNoiseIsAnError() {
        var generator = SystemRandomNumberGenerator()
        let signatures: [[UInt8]] = [
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], [0xFF, 0xD8, 0xFF, 0xE0], Array("GIF89a".utf8),
            Array("RIFF\u{0}\u{1}\u{0}\u{0}WEBPVP8 ".utf8),
        ]
        for signature in signatures {
            for _ in 0..<20 {
                let noise = (0..<Int.random(in: 1...4000, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                #expect(Thumbnailer.inspect(signature + noise, maxPixels: Self.limit).failure != nil)
            }
        }
    }

    /// libpng says why a header fails only as a glib warning: it still reaches the error.
    @Test func pngHeaderFailureSaysWhy() {
        let cut = Array(TestImages.pngBomb(width: 10, height: 10).prefix(20))
        guard case .failure(.vips(let operation, let message)) = Thumbnailer.inspect(cut, maxPixels: Self.limit) else {
            Issue.record("a PNG cut inside its header did not fail in libvips")
            return
        }
        #expect(operation == "header")
        #expect(message != "unknown error", "\(message)")
    }

    /// Formats libvips could read but the gateway does not let it (SVG through librsvg, TIFF, PDF).
    @Test func otherFormatsAreRefusedByName() {
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8)
        let tiff = TestImages.fixture("tiny.tif")
        for (bytes, loader) in [(svg, "Svg"), (tiff, "Tiff")] {
            guard case .failure(.unsupportedFormat(let what)) = Thumbnailer.inspect(bytes, maxPixels: Self.limit)
            else {
                Issue.record("\(loader) was not refused as unsupported")
                continue
            }
            #expect(what.contains(loader), "\(what)")
        }
    }

    /// libnsgif reads a 0x0 screen and frame as 1x1: never an empty image.
    @Test func zeroSizedGIFGivesNoEmptyImage() {
        let gif = TestImages.gifDeclaring(TestImages.fixture("animated.gif"), width: 0, height: 0)
        if case .success(let result) = Thumbnailer.inspect(gif, maxPixels: Self.limit) {
            #expect(result.width >= 1 && result.height >= 1 && result.thumbnailWidth >= 1)
            #expect(!result.thumbnail.isEmpty)
        }
    }

    @Test func errorsCarryLibvipsMessageAndClearIt() {
        let truncated = Array(TestImages.fixture("photo-gps.jpg").prefix(5000))
        guard case .failure(.vips(_, let message)) = Thumbnailer.inspect(truncated, maxPixels: Self.limit) else {
            Issue.record("a truncated JPEG did not fail in libvips")
            return
        }
        #expect(message != "unknown error")
        // Taken and cleared: the next failure does not repeat this one's text.
        let other = Thumbnailer.inspect(Array(TestImages.fixture("alpha.png").prefix(3000)), maxPixels: Self.limit)
        #expect(other.failure?.message.contains(message) == false)
    }
}
