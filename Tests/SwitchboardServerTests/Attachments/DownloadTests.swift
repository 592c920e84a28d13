import Foundation
import SwitchboardAttachmentStore
import SwitchboardAttachments
import SwitchboardCrypto
import SwitchboardEmbedded
import SwitchboardSystem
import Testing

@testable import SwitchboardServer

/// `GET /api/v1/attachments/{id}[/thumbnail]` in-process against in-memory
/// storage (docs/attachments.md, "Serving"): signed URLs, the exact headers,
/// validators and ranges, and bytes streamed a piece at a time as the socket drains.
@Suite(.serialized) struct DownloadTests {
    /// An attachment stored as if uploaded: its record.
    @discardableResult
    static func put(
        _ fixture: AttachmentFixture, _ bytes: [UInt8], type: String = "image/png", filename: String = "photo.png",
        thumbnail: [UInt8]? = nil
    ) -> AttachmentRecord {
        let id = UUID().uuidString.lowercased()
        let record = AttachmentRecord(
            id: id, workspaceID: fixture.chat.workspace, sessionID: fixture.sessionID, uploaderRole: "visitor",
            uploaderID: "visitor-1", filename: filename, contentType: type, size: Int64(bytes.count),
            sha256: SHA256.hex(SHA256.hash(bytes)), width: nil, height: nil, storage: "postgres",
            thumbnailSize: thumbnail.map { Int64($0.count) }, messageID: nil, createdAt: "2026-01-01T00:00:00.000Z",
            sentAt: nil, sessionDeleted: false)
        fixture.backend.put(record, bytes: bytes, thumbnail: thumbnail)
        return record
    }

    @Test func anImageIsServedWithItsTypeAndTheServingHeaders() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let bytes = sample(.png, count: 5000)
        let record = Self.put(fixture, bytes)
        let reply = fixture.get(fixture.url(record.id, ttl: 600))
        #expect(reply.status == 200 && reply.body == bytes)
        #expect(reply.header("Content-Type") == "image/png")
        #expect(reply.header("Content-Length") == "5000")
        #expect(reply.header("ETag") == "\"\(record.sha256)\"")
        #expect(reply.header("Accept-Ranges") == "bytes")
        #expect(reply.header("X-Content-Type-Options") == "nosniff")
        #expect(reply.header("Content-Security-Policy") == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        #expect(reply.header("Content-Disposition") == nil, "images are shown inline")
        let cache = try #require(reply.header("Cache-Control"))
        let maxAge = Int(cache.replacingOccurrences(of: "private, max-age=", with: "")) ?? -1
        #expect(cache.hasPrefix("private, max-age=") && (598...600).contains(maxAge), "until the URL expires: \(cache)")
        #expect(
            fixture.gateway.context.metrics.renderString().contains("switchboard_attachment_bytes_served_total 5000"))
    }

    /// Everything but images is a download, named with RFC 8187's `filename*`.
    @Test func otherFilesAreDownloadsWithTheirNameEncoded() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let pdf = Self.put(fixture, sample(.pdf, count: 100), type: "application/pdf", filename: "Résumé \"1\"; x.pdf")
        let reply = fixture.get(fixture.url(pdf.id))
        #expect(reply.status == 200 && reply.header("Content-Type") == "application/pdf")
        #expect(
            reply.header("Content-Disposition") == "attachment; filename*=UTF-8''R%C3%A9sum%C3%A9%20%221%22%3B%20x.pdf")
        let text = Self.put(fixture, sample(.text, count: 10), type: "text/plain", filename: "notes.txt")
        let textReply = fixture.get(fixture.url(text.id))
        #expect(textReply.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(textReply.header("Content-Disposition") == "attachment; filename*=UTF-8''notes.txt")
        #expect(textReply.header("X-Content-Type-Options") == "nosniff")
    }

    /// Only a URL signed by this gateway, for this id and variant, before its time.
    @Test func aTamperedOrExpiredURLIsForbidden() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let record = Self.put(fixture, sample(.png, count: 100), thumbnail: sample(.png, count: 20))
        let expires = UnixClock.nowSeconds() + 600
        let signature = fixture.signer.signature(id: record.id, variant: .original, expires: expires)
        func status(_ path: String) -> AttachmentReply { fixture.get(path) }
        #expect(status("/api/v1/attachments/\(record.id)?exp=\(expires)&sig=\(signature)").status == 200)
        var flipped = Array(signature)
        flipped[5] = flipped[5] == "A" ? "B" : "A"
        let tampered = status("/api/v1/attachments/\(record.id)?exp=\(expires)&sig=\(String(flipped))")
        #expect(tampered.status == 403 && tampered.errorCode == "forbidden")
        #expect(tampered.header("X-Content-Type-Options") == "nosniff", "refusals carry the serving headers too")
        #expect(status("/api/v1/attachments/\(record.id)?exp=\(expires + 1)&sig=\(signature)").status == 403)
        let otherID = UUID().uuidString.lowercased()
        #expect(status("/api/v1/attachments/\(otherID)?exp=\(expires)&sig=\(signature)").status == 403)
        #expect(
            status("/api/v1/attachments/\(record.id)/thumbnail?exp=\(expires)&sig=\(signature)").status == 403,
            "an original's signature does not open its thumbnail")
        #expect(status("/api/v1/attachments/\(record.id)").status == 403)
        #expect(status("/api/v1/attachments/\(record.id)?exp=\(expires)").status == 403)
        let other = AttachmentURLSigner(jwtSecret: Array("another-secret-that-is-32-bytes-long!!".utf8))
        #expect(status(other.path(id: record.id, variant: .original, expires: expires)).status == 403)
        let expired = status(
            fixture.signer.path(id: record.id, variant: .original, expires: UnixClock.nowSeconds() - 1))
        #expect(expired.status == 403 && String(decoding: expired.body, as: UTF8.self).contains("expired"))
        #expect(fixture.backend.reads.count == 1, "nothing is read for a refused URL")
    }

    @Test func theETagAnswers304() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let record = Self.put(fixture, sample(.png, count: 100))
        let url = fixture.url(record.id)
        for match in ["\"\(record.sha256)\"", "W/\"\(record.sha256)\"", "\"other\", \"\(record.sha256)\"", "*"] {
            let reply = fixture.get(url, headers: "If-None-Match: \(match)\r\n")
            #expect(reply.status == 304 && reply.body.isEmpty, "\(match)")
            #expect(reply.header("ETag") == "\"\(record.sha256)\"" && reply.header("Content-Length") == nil)
            #expect(reply.header("Cache-Control")?.hasPrefix("private, max-age=") == true)
        }
        #expect(fixture.get(url, headers: "If-None-Match: \"other\"\r\n").status == 200)
        #expect(fixture.backend.reads.count == 1, "a 304 reads nothing")
    }

    @Test func singleRangesAre206AndUnsatisfiableOnes416() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let bytes = sample(.pdf, count: 1000)
        let record = Self.put(fixture, bytes, type: "application/pdf", filename: "a.pdf")
        let url = fixture.url(record.id)
        for (range, first, last) in [
            ("bytes=0-9", 0, 9), ("bytes=990-", 990, 999), ("bytes=-5", 995, 999),
            ("bytes=100-5000", 100, 999),
        ] {
            let reply = fixture.get(url, headers: "Range: \(range)\r\n")
            #expect(reply.status == 206, "\(range)")
            #expect(reply.header("Content-Range") == "bytes \(first)-\(last)/1000", "\(range)")
            #expect(reply.header("Content-Length") == String(last - first + 1))
            #expect(reply.body == Array(bytes[first...last]), "\(range)")
            #expect(reply.header("Content-Disposition")?.hasPrefix("attachment;") == true)
        }
        let unsatisfiable = fixture.get(url, headers: "Range: bytes=1000-\r\n")
        #expect(unsatisfiable.status == 416 && unsatisfiable.header("Content-Range") == "bytes */1000")
        #expect(unsatisfiable.header("X-Content-Type-Options") == "nosniff")
        let several = fixture.get(url, headers: "Range: bytes=0-1, 5-6\r\n")
        #expect(several.status == 200 && several.body == bytes, "several ranges: the whole file")
        let stale = fixture.get(url, headers: "Range: bytes=0-9\r\nIf-Range: \"old\"\r\n")
        #expect(stale.status == 200 && stale.body == bytes, "a stale If-Range: the whole file")
        let current = fixture.get(url, headers: "Range: bytes=0-9\r\nIf-Range: \"\(record.sha256)\"\r\n")
        #expect(current.status == 206 && current.body == Array(bytes[0...9]))
    }

    @Test func headAnswersTheHeadersWithoutReadingTheFile() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let record = Self.put(fixture, sample(.png, count: 3000))
        let client = fixture.client()
        client.send(
            "HEAD \(fixture.url(record.id)) HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = client.readReply(headOnly: true)
        #expect(head.status == 200 && head.header("Content-Length") == "3000" && head.header("ETag") != nil)
        let health = client.readReply()
        #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == #"{"status":"ok"}"#)
        #expect(fixture.backend.reads.isEmpty)
    }

    /// A deleted session's attachments, and ids that are not stored, are 404.
    @Test func missingAndDeletedAre404() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let record = Self.put(fixture, sample(.png, count: 100))
        #expect(fixture.get(fixture.url(UUID().uuidString.lowercased())).status == 404)
        #expect(fixture.get(fixture.url(record.id, variant: .thumbnail)).status == 404, "no thumbnail")
        #expect(fixture.get(fixture.url(record.id)).status == 200)
        fixture.backend.deleteSession(fixture.sessionID)
        let gone = fixture.get(fixture.url(record.id))
        #expect(gone.status == 404 && gone.errorCode == "not_found")
    }

    /// A thumbnail is served with its own type, read from its bytes.
    @Test func aThumbnailIsServedWithItsOwnType() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let thumbnail = sample(.jpeg, count: 700)
        let record = Self.put(fixture, sample(.png, count: 5000), thumbnail: thumbnail)
        let reply = fixture.get(fixture.url(record.id, variant: .thumbnail))
        #expect(reply.status == 200 && reply.body == thumbnail)
        #expect(reply.header("Content-Type") == "image/jpeg" && reply.header("Content-Length") == "700")
        #expect(reply.header("Content-Disposition") == nil)
    }

    /// 10 MiB to a client that reads slowly: storage is asked a piece of at most
    /// 256 KiB at a time, and the next only once the socket has taken the last,
    /// so the connection never holds more than one piece unsent.
    @Test func aLargeDownloadIsStreamedAPieceAtATimeAsTheSocketDrains() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let bytes = sample(.pdf, count: 10 << 20, seed: 3)
        let record = Self.put(fixture, bytes, type: "application/pdf", filename: "big.pdf")
        let client = fixture.client()
        let connection = client.connection
        connection.socketBufferBytes = 64 * 1024
        client.send("GET \(fixture.url(record.id)) HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        var received: [UInt8] = []
        var mostQueued = 0
        var steps = 0
        while steps < 10_000 {
            steps += 1
            fixture.gateway.runPending()
            mostQueued = max(mostQueued, connection.backlog.count)
            let readsBefore = fixture.backend.reads.count
            received += connection.takeOutbound()  // the peer reads what the socket buffer holds
            if received.count > 10 << 20 + 400 && fixture.backend.reads.count == readsBefore { break }
        }
        let headEnd = try #require(received.firstRange(of: Array("\r\n\r\n".utf8)))
        let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200 OK") && head.contains("Content-Length: 10485760"))
        let body = Array(received[headEnd.upperBound..<min(received.count, headEnd.upperBound + bytes.count)])
        #expect(body == bytes)
        let reads = fixture.backend.reads
        #expect(reads.count == 40 && reads.allSatisfy { $0.length <= 256 * 1024 }, "\(reads.count) reads")
        // One piece at most, and behind the last one the short answer to the next request.
        #expect(mostQueued <= 256 * 1024 + 100, "more than a piece waited unsent: \(mostQueued)")
        let rest = String(decoding: received[(headEnd.upperBound + bytes.count)...], as: UTF8.self)
        #expect(rest.hasPrefix("HTTP/1.1 200 OK") && rest.hasSuffix(#"{"status":"ok"}"#), "the next request after it")
    }

    /// A client that goes away mid-download stops the reads.
    @Test func aClientGoneMidDownloadStopsTheReads() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let record = Self.put(fixture, sample(.pdf, count: 4 << 20), type: "application/pdf", filename: "big.pdf")
        let client = fixture.client()
        client.connection.socketBufferBytes = 64 * 1024
        client.send("GET \(fixture.url(record.id)) HTTP/1.1\r\nHost: x\r\n\r\n")
        for _ in 0..<3 {
            fixture.gateway.runPending()
            _ = client.connection.takeOutbound()
        }
        let reads = fixture.backend.reads.count
        #expect(reads >= 1 && reads < 16)
        client.connection.closeNow()
        fixture.settle()
        #expect(fixture.backend.reads.count <= reads + 1)
    }
}
