import Foundation
import SwitchboardAttachments
import Testing

@testable import SwitchboardServer

/// The thumbnailer the gateway runs on its attachment workers (libvips): a
/// photo's thumbnail keeps none of its metadata, and bytes that only begin
/// like an image are refused rather than stored.
@Suite(.serialized) struct StoredImageTests {
    @Test func aPhotoGetsAThumbnailWithoutItsLocationAndAFakeImageIsRefused() throws {
        let live = try StoredAttachmentTests.Live(storage: "postgres")
        defer { live.stop() }
        let photo = try fixtureImage("photo-gps.jpg")
        #expect(photo.containsBytes(Array("GPS".utf8)), "the fixture carries a location")
        let reply = try live.upload(photo, filename: "parcel.jpg", type: "image/jpeg")
        #expect(reply.status == 201, "\(reply.head)\(String(decoding: reply.body, as: UTF8.self))")
        let object = try #require(reply.attachment)
        #expect(object["width"] as? Int == 1200 && object["height"] as? Int == 800)
        let thumbnail = try live.get(try #require(object["thumbnail_url"] as? String))
        #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/jpeg")
        #expect(thumbnail.body.starts(with: [0xFF, 0xD8, 0xFF]))
        #expect(!thumbnail.body.containsBytes(Array("Exif".utf8)) && !thumbnail.body.containsBytes(Array("GPS".utf8)))
        #expect(thumbnail.body.count < photo.count)

        let fake = sample(.png, count: 50_000)
        let refused = try live.upload(fake, filename: "fake.png", type: "image/png")
        #expect(refused.status == 415, "\(refused.head)")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("cannot be processed"))
        #expect(try live.chat.count("SELECT count(*) FROM attachments", []) == 1)
        #expect(live.budgetReturned())
    }
}

/// An image of the thumbnailer's test fixtures (Tests/SwitchboardThumbnailsTests/Fixtures).
func fixtureImage(_ name: String) throws -> [UInt8] {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return Array(try Data(contentsOf: tests.appendingPathComponent("SwitchboardThumbnailsTests/Fixtures/\(name)")))
}

extension Array where Element == UInt8 {
    func containsBytes(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
