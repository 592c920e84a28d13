import Foundation
import Testing

@testable import SwitchboardThumbnails

/// Images whose header declares far more pixels than the file could hold: refused
/// from the header, before libvips decodes (or allocates for) a single row.
struct PixelBombTests {
    static let limit = 50_000_000

    struct Bomb: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var width: Int
        var height: Int
        var testDescription: String { name }
    }

    static let bombs: [Bomb] = [
        Bomb(
            name: "PNG 60000x60000", bytes: TestImages.pngBomb(width: 60000, height: 60000), width: 60000, height: 60000
        ),
        Bomb(
            name: "JPEG 65000x65000",
            bytes: TestImages.jpegDeclaring(TestImages.fixture("small.jpg"), width: 65000, height: 65000),
            width: 65000, height: 65000),
        Bomb(
            name: "GIF 65535x65535",
            bytes: TestImages.gifDeclaring(TestImages.fixture("animated.gif"), width: 65535, height: 65535),
            width: 65535, height: 65535),
        Bomb(
            name: "WebP 16383x16383",
            bytes: TestImages.webpDeclaring(TestImages.fixture("photo.webp"), width: 16383, height: 16383),
            width: 16383, height: 16383),
    ]

    @Test(arguments: bombs) func refusedFromTheHeaderFast(_ bomb: Bomb) {
        let start = ContinuousClock.now
        let result = Thumbnailer.inspect(bomb.bytes, maxPixels: Self.limit)
        let elapsed = ContinuousClock.now - start
        print("\(bomb.name) (\(bomb.bytes.count) bytes): \(result.failure?.message ?? "accepted") in \(elapsed)")
        #expect(result.failure == .tooManyPixels(width: bomb.width, height: bomb.height, limit: Self.limit))
        #expect(elapsed < .seconds(1))
    }

    /// The same PNG under a limit it fits: libvips now decodes it and fails on the
    /// missing rows. So the refusal above came from the header, not from decoding.
    @Test func theSameBombUnderAHigherLimitIsDecodedAndFails() {
        let bomb = TestImages.pngBomb(width: 3000, height: 3000)
        #expect(
            Thumbnailer.inspect(bomb, maxPixels: 8_999_999).failure
                == .tooManyPixels(width: 3000, height: 3000, limit: 8_999_999))
        let decoded = Thumbnailer.inspect(bomb, maxPixels: 9_000_000)
        guard case .failure(.vips(let operation, let message)) = decoded else {
            Issue.record("expected libvips to fail decoding, got \(decoded)")
            return
        }
        #expect(["thumbnail", "jpegsave", "pngsave"].contains(operation))  // the pipeline decodes as it saves
        #expect(!message.isEmpty)
    }

    @Test func limitIsInclusive() {
        let small = TestImages.fixture("small.jpg")
        #expect(Thumbnailer.inspect(small, maxPixels: 5000).success != nil)
        #expect(
            Thumbnailer.inspect(small, maxPixels: 4999).failure == .tooManyPixels(width: 100, height: 50, limit: 4999))
    }
}
