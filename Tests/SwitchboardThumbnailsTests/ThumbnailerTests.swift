import Testing

@testable import SwitchboardThumbnails

struct ThumbnailerTests {
    static let limit = 50_000_000

    @Test func photoWithGPSLosesEveryPieceOfMetadata() throws {
        let source = TestImages.fixture("photo-gps.jpg")
        // The fixture does carry what must go (else this test could not fail).
        for marker in ["Exif", "GPS", "Ada Lovelace", "taken at home", "http://ns.adobe.com/xap/1.0/"] {
            #expect(TestImages.contains(source, marker), "fixture without \(marker)")
        }
        #expect(TestImages.vipsFields(source)?.contains("exif-data") == true)

        let result = try #require(Thumbnailer.inspect(source, maxPixels: Self.limit).success)
        #expect(result.width == 1200 && result.height == 800)
        #expect(result.thumbnailWidth == 400 && result.thumbnailHeight == 267)
        #expect(result.contentType == "image/jpeg")
        #expect(result.thumbnail.starts(with: [0xFF, 0xD8, 0xFF]))
        for marker in ["Exif", "GPS", "Ada Lovelace", "taken at home", "http://ns.adobe.com/xap/1.0/", "ICC_PROFILE"] {
            #expect(!TestImages.contains(result.thumbnail, marker), "\(marker) left in the thumbnail")
        }
        let fields = try #require(TestImages.vipsFields(result.thumbnail))
        let kept = fields.filter {
            ["exif", "xmp", "iptc", "icc", "gps", "jpeg-comment"].contains(where: $0.hasPrefix)
        }
        #expect(kept.isEmpty, "metadata fields left: \(kept)")
        #expect(fields.contains("width"))  // the list is libvips' real one
    }

    @Test func sidewaysPhotoIsTurnedUpright() throws {
        let result = try #require(Thumbnailer.inspect(TestImages.fixture("rotated.jpg"), maxPixels: Self.limit).success)
        // Stored 1200x800 with EXIF orientation 6: shown (and thumbnailed) as a portrait.
        #expect(result.width == 800 && result.height == 1200)
        #expect(result.thumbnailWidth == 267 && result.thumbnailHeight == 400)
        #expect(!TestImages.contains(result.thumbnail, "Exif"))
        #expect(TestImages.vipsFields(result.thumbnail)?.contains("orientation") == false)
    }

    @Test func pngWithAlphaStaysPNGWithAlpha() throws {
        let result = try #require(Thumbnailer.inspect(TestImages.fixture("alpha.png"), maxPixels: Self.limit).success)
        #expect(result.width == 800 && result.height == 600)
        #expect(result.thumbnailWidth == 400 && result.thumbnailHeight == 300)
        #expect(result.contentType == "image/png")
        #expect(result.thumbnail.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        #expect(result.thumbnail[24] == 8 && result.thumbnail[25] == 6, "IHDR: 8-bit RGBA")
    }

    @Test func animatedGIFGivesItsFirstFrame() throws {
        let source = TestImages.fixture("animated.gif")
        let result = try #require(Thumbnailer.inspect(source, maxPixels: Self.limit).success)
        #expect(result.width == 500 && result.height == 300, "one frame, not the three stacked")
        #expect(result.thumbnailWidth == 400 && result.thumbnailHeight == 240)
        #expect(["image/jpeg", "image/png"].contains(result.contentType))
        // Three frames of 500x300 would be 450,000 pixels: a limit between one and three frames passes.
        #expect(Thumbnailer.inspect(source, maxPixels: 150_000).success != nil)
    }

    @Test func webPBecomesJPEG() throws {
        let result = try #require(Thumbnailer.inspect(TestImages.fixture("photo.webp"), maxPixels: Self.limit).success)
        #expect(result.width == 640 && result.height == 480)
        #expect(result.thumbnailWidth == 400 && result.thumbnailHeight == 300)
        #expect(result.contentType == "image/jpeg")
    }

    @Test func animatedWebPGivesItsFirstFrame() throws {
        let result = try #require(
            Thumbnailer.inspect(TestImages.fixture("animated.webp"), maxPixels: Self.limit).success)
        #expect(result.width == 320 && result.height == 240)
        #expect(result.thumbnailWidth == 320 && result.thumbnailHeight == 240)
    }

    @Test func cmykPhotoBecomesSRGB() throws {
        let source = TestImages.fixture("cmyk.jpg")
        #expect(TestImages.vipsBands(source)?.bands == 4)
        let result = try #require(Thumbnailer.inspect(source, maxPixels: Self.limit).success)
        #expect(result.contentType == "image/jpeg" && result.thumbnailWidth == 300)
        let thumbnail = try #require(TestImages.vipsBands(result.thumbnail))
        #expect(thumbnail.bands == 3 && thumbnail.isSRGB)
    }

    /// A Display P3 photo is moved to sRGB before its profile is stripped (else its colours would shift).
    @Test func profiledPhotoLosesItsProfile() throws {
        let source = TestImages.fixture("p3.jpg")
        #expect(TestImages.vipsFields(source)?.contains("icc-profile-data") == true)
        let result = try #require(Thumbnailer.inspect(source, maxPixels: Self.limit).success)
        #expect(TestImages.vipsFields(result.thumbnail)?.contains("icc-profile-data") == false)
        #expect(!TestImages.contains(result.thumbnail, "ICC_PROFILE"))
    }

    @Test func smallImageIsNotEnlarged() throws {
        let result = try #require(Thumbnailer.inspect(TestImages.fixture("small.jpg"), maxPixels: Self.limit).success)
        #expect(result.width == 100 && result.height == 50)
        #expect(result.thumbnailWidth == 100 && result.thumbnailHeight == 50)
    }

    @Test func maxSideBoundsTheLongerSide() throws {
        let result = try #require(
            Thumbnailer.inspect(TestImages.fixture("rotated.jpg"), maxPixels: Self.limit, maxSide: 120).success)
        #expect(result.thumbnailWidth == 80 && result.thumbnailHeight == 120)
    }

    @Test func resultsDoNotDependOnEarlierCalls() throws {
        let source = TestImages.fixture("photo-gps.jpg")
        let first = try #require(Thumbnailer.inspect(source, maxPixels: Self.limit).success)
        _ = Thumbnailer.inspect(TestImages.fixture("alpha.png"), maxPixels: Self.limit)
        _ = Thumbnailer.inspect(TestImages.pngBomb(width: 60000, height: 60000), maxPixels: Self.limit)
        #expect(Thumbnailer.inspect(source, maxPixels: Self.limit).success == first)
    }
}
