import Foundation
import SwitchboardAdmission
import SwitchboardAttachments
import SwitchboardCrypto
import SwitchboardEmbedded
import SwitchboardSystem
import Testing

@testable import SwitchboardServer

/// `POST /api/v1/sessions/{id}/attachments` in-process against in-memory
/// storage (docs/attachments.md, "The path of an upload"): the bytes arrive
/// exact and in order however the reads cut them, the window bounds what
/// waits for storage, and every refusal comes when docs/protocol.md says.
@Suite(.serialized) struct UploadTests {
    /// Small windows and pieces, so that every split of a short body crosses their edges.
    static let small = AttachmentService.Sizes(window: 1000, piece: 300, read: 700)

    @Test func anUploadStoresTheExactBytesAndAnswersTheAttachmentWithSignedURLs() throws {
        let backend = MemoryAttachments()
        backend.thumbnail = sample(.png, count: 100, seed: 9)
        backend.imageSize = (800, 600)
        let fixture = try AttachmentFixture(backend: backend)
        defer { fixture.stop() }
        let body = sample(.png, count: 600_000)
        let reply = fixture.upload(body, filename: "receipt.png")
        #expect(reply.status == 201, "\(reply.head)")
        let object = try #require(reply.attachment)
        let id = try #require(object["id"] as? String)
        #expect(object["filename"] as? String == "receipt.png")
        #expect(object["content_type"] as? String == "image/png")
        #expect(object["size"] as? Int == body.count)
        #expect(object["sha256"] as? String == SHA256.hex(SHA256.hash(body)))
        #expect(object["width"] as? Int == 800 && object["height"] as? Int == 600)
        let url = try #require(object["url"] as? String)
        #expect(url.hasPrefix("/api/v1/attachments/\(id)?exp="))
        let thumbnailURL = try #require(object["thumbnail_url"] as? String)
        #expect(thumbnailURL.hasPrefix("/api/v1/attachments/\(id)/thumbnail?exp="))
        let expires = Int64(url.split(separator: "exp=")[1].split(separator: "&")[0]) ?? 0
        #expect(abs(expires - UnixClock.nowSeconds() - 3600) <= 2, "url_ttl_s from now")
        #expect(fixture.backend.files[id] == body)
        let upload = try #require(fixture.backend.lastUpload)
        #expect(upload.new.sessionID == fixture.sessionID && upload.new.uploaderRole == "visitor")
        #expect(upload.new.uploaderID == "visitor-1" && upload.new.workspaceID == fixture.chat.workspace)
        #expect(upload.pieces.allSatisfy { $0 <= 64 * 1024 }, "pieces of at most 64 KiB")
        #expect(fixture.backend.mostWaiting <= 256 * 1024, "never more than the window waiting for storage")
        #expect(fixture.service.budget.inUse == 0, "the budget is given back")
        #expect(fixture.uploads("stored") == 1)
        #expect(
            fixture.gateway.context.metrics.renderString().contains("switchboard_attachment_bytes_stored_total 600000"))
        // The URL serves what was uploaded.
        let download = fixture.get(url)
        #expect(download.status == 200 && download.body == body)
    }

    /// The whole request (head and body) fed in pieces of every size from 1 to
    /// 1,300 bytes, with a window of 1,000 and pieces of 300: every size crosses
    /// the window's and the pieces' edges somewhere.
    @Test func everySplitOfTheRequestStoresTheSameBytes() throws {
        let fixture = try AttachmentFixture(sizes: Self.small) { $0.attachmentsUploadsPerMinute = 0 }
        defer { fixture.stop() }
        let body = sample(.pdf, count: 2500)
        let request = fixture.uploadRequest(body, filename: "a.pdf", contentType: "application/pdf")
        for size in 1...1300 {
            let client = fixture.client()
            for piece in pieces(request, size: size) { client.send(piece) }
            let reply = client.readReply()
            let id = reply.attachment?["id"] as? String ?? ""
            #expect(reply.status == 201 && fixture.backend.files[id] == body, "pieces of \(size): \(reply.head)")
            if fixture.backend.files[id] != body { break }
        }
        #expect(fixture.backend.uploads.allSatisfy { $0.pieces.allSatisfy { $0 <= 300 } })
        #expect(fixture.backend.mostWaiting <= 1000)
        #expect(fixture.service.budget.inUse == 0)
    }

    /// The same with chunked framing (chunks of several sizes) and storage that
    /// reports only whole chunks of the window's size, as PostgreSQL does.
    @Test func everySplitOfAChunkedRequestStoresTheSameBytesWithSlowStorage() throws {
        let backend = MemoryAttachments()
        backend.storesSlowly = true
        backend.chunkBytes = 1000
        let fixture = try AttachmentFixture(backend: backend, sizes: Self.small) { $0.attachmentsUploadsPerMinute = 0 }
        defer { fixture.stop() }
        let body = sample(.text, count: 2500)
        for chunkSize in [1, 299, 300, 301, 999, 1000, 1001, 2500] {
            let request =
                fixture.uploadHead(filename: "notes.txt", contentType: "text/plain; charset=utf-8", length: nil)
                + chunked(body, size: chunkSize)
            for size in [1, 2, 3, 5, 7, 64, 299, 300, 301, 999, 1000, 1001, 1500, request.count] {
                let client = fixture.client()
                for piece in pieces(request, size: size) { client.send(piece) }
                var reply: AttachmentReply?
                let answered = fixture.pump(storing: true) {
                    if client.available == 0 { return false }
                    reply = client.readReply()
                    return true
                }
                let id = reply?.attachment?["id"] as? String ?? ""
                #expect(answered && reply?.status == 201, "chunks of \(chunkSize), pieces of \(size)")
                #expect(fixture.backend.files[id] == body, "chunks of \(chunkSize), pieces of \(size)")
                #expect(fixture.backend.mostWaiting <= 1000)
            }
        }
        #expect(fixture.service.budget.inUse == 0)
    }

    /// The default sizes around their edges: bodies of a window and a piece plus
    /// or minus one, fed in reads of sizes around 4 and 64 KiB.
    @Test func realisticReadsAroundTheWindowsEdges() throws {
        let fixture = try AttachmentFixture { $0.attachmentsUploadsPerMinute = 0 }
        defer { fixture.stop() }
        for length in [65_535, 65_536, 65_537, 262_143, 262_144, 262_145, 700_001] {
            let body = sample(.gif, count: length, seed: length)
            let request = fixture.uploadRequest(body, filename: "a.gif", contentType: "image/gif")
            for size in [4095, 4096, 65_535, 65_536, 65_537, 262_145] {
                let client = fixture.client()
                for piece in pieces(request, size: size) { client.send(piece) }
                let reply = client.readReply()
                let id = reply.attachment?["id"] as? String ?? ""
                #expect(reply.status == 201 && fixture.backend.files[id] == body, "\(length) bytes in reads of \(size)")
            }
        }
        #expect(fixture.backend.mostWaiting <= 256 * 1024)
        #expect(fixture.service.budget.inUse == 0)
    }

    /// Storage that stores slowly: the connection stops reading with a window's
    /// worth waiting (the rest stays in the kernel), and goes on as storage catches up.
    @Test func aFullWindowPausesReadingUntilStorageCatchesUp() throws {
        let backend = MemoryAttachments()
        backend.storesSlowly = true
        backend.chunkBytes = 256 * 1024
        let fixture = try AttachmentFixture(backend: backend)
        defer { fixture.stop() }
        let body = sample(.jpeg, count: 1_000_000)
        let head = fixture.uploadHead(filename: "big.jpg", contentType: "image/jpeg", length: body.count)
        let client = fixture.client()
        let connection = client.connection
        client.send(head)
        for piece in pieces(body, size: 64 * 1024) { client.send(piece) }
        fixture.gateway.runPending()
        #expect(connection.isReadingPaused, "the window is full: reading stops")
        #expect(backend.lastUpload?.waiting == 256 * 1024)
        #expect(connection.deliveredBytes == head.count + 256 * 1024, "the rest is left in the kernel")
        #expect(connection.unreadInbound.count == body.count - 256 * 1024)
        var rounds = 0
        while connection.isReadingPaused && rounds < 10 {
            rounds += 1
            backend.storeWaiting()
            fixture.gateway.runPending()
            #expect(backend.mostWaiting <= 256 * 1024)
        }
        #expect(rounds == 3, "three more windows: \(rounds)")
        backend.storeWaiting(all: true)
        let reply = client.readReply()
        #expect(reply.status == 201)
        #expect(backend.files[reply.attachment?["id"] as? String ?? ""] == body)
        #expect(backend.mostWaiting == 256 * 1024)
        #expect(fixture.service.budget.inUse == 0)
    }

    /// While storage is slow the client is not idle: the per-piece timeout waits.
    @Test func theIdleTimeoutSparesAnUploadWaitingForStorageButNotAStalledClient() throws {
        let backend = MemoryAttachments()
        backend.storesSlowly = true
        backend.chunkBytes = 1000
        let fixture = try AttachmentFixture(backend: backend, sizes: Self.small)
        defer { fixture.stop() }
        let body = sample(.png, count: 3000)
        let client = fixture.client()
        client.send(fixture.uploadHead(length: body.count) + body)
        fixture.gateway.runPending()
        #expect(client.connection.isReadingPaused)
        fixture.gateway.advance(by: 30_000)
        #expect(client.connection.isOpen, "waiting for storage is not idling")
        #expect(fixture.pump(storing: true) { client.available > 0 })
        #expect(client.readReply().status == 201)
        // A client that stops mid-body is timed out after http.header_timeout_s of silence.
        let stalled = fixture.client()
        stalled.send(fixture.uploadHead(length: body.count) + body[..<100])
        #expect(fixture.pump { fixture.backend.uploadCount == 2 })
        fixture.gateway.advance(by: 9_000)
        stalled.send(Array(body[100..<200]))
        fixture.gateway.advance(by: 9_000)
        #expect(stalled.connection.isOpen, "a piece re-arms the idle timeout")
        fixture.gateway.advance(by: 2_000)
        let reply = stalled.readReply()
        #expect(reply.status == 408)
        #expect(!stalled.connection.isOpen)
        #expect(fixture.backend.lastUpload?.aborted == true)
        #expect(fixture.uploads("aborted") == 1)
        backend.storeWaiting(all: true)
        fixture.settle()
        #expect(fixture.service.budget.inUse == 0)
    }

    /// 413 at a Content-Length of max_bytes + 1, before a byte of the body is
    /// read; exactly max_bytes is taken.
    @Test func aBodyOverMaxBytesIsRefusedUnreadAndExactlyMaxBytesIsTaken() throws {
        let fixture = try AttachmentFixture { $0.attachmentsMaxBytes = 10_000 }
        defer { fixture.stop() }
        let atLimit = fixture.upload(sample(.png, count: 10_000))
        #expect(atLimit.status == 201 && atLimit.attachment?["size"] as? Int == 10_000)

        let client = fixture.client()
        let head = fixture.uploadHead(length: 10_001, extra: "Origin: https://shop.example\r\n")
        client.send(head)
        let reply = client.readReply()
        #expect(reply.status == 413 && reply.errorCode == "too_large")
        #expect(reply.header("Connection") == "close")
        #expect(reply.header("Access-Control-Allow-Origin") == "https://shop.example", "the widget can read why")
        #expect(client.connection.state != .open)
        let consumed = client.connection.deliveredBytes
        client.send(sample(.png, count: 10_001))
        #expect(client.connection.deliveredBytes == consumed && consumed == head.count, "nothing more was read")
        #expect(fixture.backend.uploadCount == 1, "no storage was started")
        #expect(fixture.uploads("too_large") == 1)
        #expect(
            fixture.gateway.context.metrics.renderString().contains(
                "switchboard_http_requests_total{route=\"attachment_upload\",status=\"413\"} 1"))
    }

    /// A chunked body is refused at the chunk that takes it past max_bytes; what
    /// was stored of it is abandoned.
    @Test func aChunkedBodyGrowingPastMaxBytesIsRefusedAtThatChunk() throws {
        let fixture = try AttachmentFixture { $0.attachmentsMaxBytes = 10_000 }
        defer { fixture.stop() }
        let client = fixture.client()
        let body = sample(.png, count: 10_001)
        client.send(fixture.uploadHead(length: nil) + Array(chunked(body, size: 4000).prefix(8100)))
        let reply = client.readReply()
        #expect(reply.status == 413)
        #expect(fixture.backend.lastUpload?.aborted == true)
        #expect(fixture.backend.lastUpload?.bytes.count == 8000)
        fixture.settle()
        #expect(fixture.service.budget.inUse == 0)
        let exact = fixture.client()
        exact.send(fixture.uploadHead(length: nil) + chunked(Array(body.prefix(10_000)), size: 4000))
        #expect(exact.readReply().status == 201)
    }

    /// 415 as soon as the type is known: markup named .png, a declared type that
    /// is not the sniffed one; text is known only at its end.
    @Test func refusedTypesAre415() throws {
        let fixture = try AttachmentFixture { $0.attachmentsUploadsPerMinute = 0 }
        defer { fixture.stop() }
        let html = Array("<!DOCTYPE html><script>alert(1)</script>".utf8) + sample(.text, count: 5000)
        let client = fixture.client()
        client.send(fixture.uploadHead(filename: "cat.png", contentType: "image/png", length: html.count))
        client.send(Array(html.prefix(100)))
        let markup = client.readReply()
        #expect(markup.status == 415 && markup.errorCode == "bad_request", "\(markup.head)")
        #expect(!client.connection.isOpen, "refused mid-body: closed after the answer")
        #expect(fixture.backend.lastUpload?.aborted == true)

        let mismatch = fixture.upload(sample(.png, count: 5000), filename: "cat.jpg", contentType: "image/jpeg")
        #expect(mismatch.status == 415)
        #expect(String(decoding: mismatch.body, as: UTF8.self).contains("image/png"))

        // Text is only known at its end: the body is read whole, so the connection stays open.
        let textAsImage = fixture.client()
        textAsImage.send(fixture.uploadRequest(sample(.text, count: 3000), filename: "a.png", contentType: "image/png"))
        #expect(textAsImage.readReply().status == 415)
        #expect(textAsImage.connection.isOpen)

        let binary = fixture.upload([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], filename: "a.bin", contentType: nil)
        #expect(binary.status == 415)
        let empty = fixture.upload([], filename: "empty.txt", contentType: nil)
        #expect(empty.status == 415)
        // No Content-Type, or application/octet-stream: the sniffed type is taken.
        #expect(fixture.upload(sample(.webp, count: 100), filename: "a.webp", contentType: nil).status == 201)
        #expect(
            fixture.upload(sample(.pdf, count: 100), filename: "a.pdf", contentType: "application/octet-stream").status
                == 201)
        #expect(fixture.uploads("unsupported_type") == 5)
        fixture.settle()
        #expect(fixture.service.budget.inUse == 0)
    }

    @Test func onlyTheConfiguredTypesAreAccepted() throws {
        let fixture = try AttachmentFixture { $0.attachmentsAllowedTypes = ["image/png"] }
        defer { fixture.stop() }
        #expect(fixture.upload(sample(.png, count: 100)).status == 201)
        #expect(fixture.upload(sample(.pdf, count: 100), filename: "a.pdf", contentType: nil).status == 415)
        #expect(fixture.upload(sample(.text, count: 100), filename: "a.txt", contentType: nil).status == 415)
    }

    /// The in-flight budget: each upload reserves its window; none left is 503
    /// with Retry-After; what ends (finished or abandoned) gives it back.
    @Test func anExhaustedBudgetIs503UntilUploadsEnd() throws {
        let fixture = try AttachmentFixture { $0.attachmentsMaxInFlightBytes = 512 * 1024 }
        defer { fixture.stop() }
        let body = sample(.png, count: 400_000)
        let first = fixture.client()
        first.send(fixture.uploadHead(length: body.count) + body[..<1000])
        let second = fixture.client()
        second.send(fixture.uploadHead(length: nil) + chunked(Array(body[..<1000]), size: 500).dropLast(5))
        #expect(fixture.pump { fixture.backend.uploadCount == 2 })
        #expect(fixture.service.budget.inUse == 512 * 1024)
        #expect(
            fixture.gateway.context.metrics.renderString().contains("switchboard_attachment_in_flight_bytes 524288"))

        let third = fixture.client()
        third.send(fixture.uploadRequest(sample(.png, count: 10)))
        let refused = third.readReply()
        #expect(refused.status == 503 && refused.errorCode == "overloaded")
        #expect(refused.header("Retry-After") == "1")
        #expect(fixture.backend.uploadCount == 2)

        first.send(Array(body[1000...]))
        #expect(first.readReply().status == 201)
        #expect(fixture.service.budget.inUse == 256 * 1024)
        // A small upload reserves only its size.
        let small = fixture.upload(sample(.png, count: 10))
        #expect(small.status == 201)

        second.connection.peerClose()  // gone mid-body
        #expect(fixture.backend.uploads[1].aborted)
        fixture.settle()
        #expect(fixture.service.budget.inUse == 0)
        #expect(fixture.uploads("overloaded") == 1 && fixture.uploads("aborted") == 1)
    }

    /// A client that disconnects mid-upload: the upload is aborted, its budget
    /// given back once storage has reported what it had.
    @Test func aClientGoneMidUploadAbortsIt() throws {
        let backend = MemoryAttachments()
        backend.storesSlowly = true
        backend.chunkBytes = 1000
        let fixture = try AttachmentFixture(backend: backend, sizes: Self.small)
        defer { fixture.stop() }
        let client = fixture.client()
        client.send(fixture.uploadHead(length: 5000) + sample(.png, count: 1500))
        fixture.gateway.runPending()
        #expect(backend.lastUpload?.waiting == 1000)
        client.connection.closeNow()
        #expect(backend.lastUpload?.aborted == true)
        #expect(fixture.service.budget.inUse == 1000, "what storage holds still counts")
        backend.storeWaiting(all: true)
        fixture.gateway.runPending()
        #expect(fixture.service.budget.inUse == 0)
        #expect(fixture.uploads("aborted") == 1)
    }

    @Test func theUploaderMustBeAllowedTheSession() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let body = sample(.png, count: 100)
        func upload(token: String, session: String? = nil) -> AttachmentReply {
            let client = fixture.client()
            client.send(fixture.uploadHead(session: session, token: token, length: body.count) + body)
            return client.readReply()
        }
        let noToken = fixture.client()
        noToken.send(fixture.uploadHead(token: "", length: body.count) + body)
        let missing = noToken.readReply()
        #expect(missing.status == 401 && missing.errorCode == "unauthorized")
        #expect(upload(token: "not-a-jwt").status == 401)
        let wrongSecret = TestTokens.make(
            role: .visitor, workspace: fixture.chat.workspace, sub: "visitor-1",
            secret: "another-secret-that-is-32-bytes-long!!")
        #expect(upload(token: wrongSecret).status == 401)
        let otherVisitor = TestTokens.make(role: .visitor, workspace: fixture.chat.workspace, sub: "visitor-2")
        let forbidden = upload(token: otherVisitor)
        #expect(forbidden.status == 403 && forbidden.errorCode == "forbidden")
        let unknown = upload(token: fixture.operatorToken, session: UUID().uuidString.lowercased())
        #expect(unknown.status == 404 && unknown.errorCode == "not_found")
        #expect(upload(token: fixture.operatorToken, session: "not-a-uuid").status == 404)
        let otherWorkspace = TestTokens.make(role: .operator, workspace: fixture.chat.otherWorkspace, sub: "op-x")
        let elsewhere = upload(token: otherWorkspace).status
        #expect([403, 404].contains(elsewhere))
        #expect(upload(token: fixture.operatorToken).status == 201, "the workspace's operators may upload")
        #expect(upload(token: fixture.visitorToken).status == 201)
        // Storage was started only for heads that passed the token check; the refused ones were abandoned.
        #expect(fixture.backend.uploads.filter(\.aborted).count == 3)
        #expect(fixture.uploads("unauthorized") == 3)
        #expect(fixture.uploads("forbidden") == (elsewhere == 403 ? 2 : 1))
        #expect(fixture.uploads("not_found") == (elsewhere == 404 ? 3 : 2))
        fixture.settle()
        #expect(fixture.service.budget.inUse == 0)
    }

    @Test func aFileNameIsRequired() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let body = sample(.png, count: 10)
        for filename in [nil, "", String(repeating: "x", count: 256), "a\u{1}b"] as [String?] {
            let client = fixture.client()
            client.send(fixture.uploadHead(filename: filename, length: body.count) + body)
            let reply = client.readReply()
            #expect(reply.status == 400 && reply.errorCode == "bad_request", "\(String(describing: filename))")
        }
        let unicode = fixture.upload(body, filename: "Quittung März ✓.png")
        #expect(unicode.attachment?["filename"] as? String == "Quittung März ✓.png")
    }

    /// `attachments.uploads_per_minute`, per connection and per address: 429 with Retry-After.
    @Test func uploadsAreRatedPerConnectionAndPerAddress() throws {
        let fixture = try AttachmentFixture { $0.attachmentsUploadsPerMinute = 2 }
        defer { fixture.stop() }
        let request = fixture.uploadRequest(sample(.png, count: 10))
        let client = fixture.client()
        for _ in 0..<2 {
            client.send(request)
            #expect(client.readReply().status == 201)
        }
        client.send(request)
        let refused = client.readReply()
        #expect(refused.status == 429 && refused.errorCode == "rate_limited")
        #expect(refused.header("Retry-After") == "30")
        // Another connection from the same (loopback, exempt) address is not limited by this one.
        #expect(fixture.upload(sample(.png, count: 10)).status == 201)
        // From a limited address, new connections share its rate.
        let remote = IPAddress(parsing: "198.51.100.7")!
        for _ in 0..<2 {
            let client = fixture.client(from: remote)
            client.send(request)
            #expect(client.readReply().status == 201)
        }
        let third = fixture.client(from: remote)
        third.send(request)
        let limited = third.readReply()
        #expect(limited.status == 429 && limited.header("Retry-After") == "30")
        #expect(fixture.uploads("rate_limited") == 2)
    }

    /// Behind a trusted proxy, the address the upload is rated by is the client's it names.
    @Test func behindATrustedProxyTheNamedClientIsRated() throws {
        let fixture = try AttachmentFixture {
            $0.trustedProxies = ["127.0.0.1"]
            $0.attachmentsUploadsPerMinute = 1
        }
        defer { fixture.stop() }
        let body = sample(.png, count: 10)
        func upload(for client: String) -> Int {
            let connection = fixture.client()
            connection.send(fixture.uploadHead(length: body.count, extra: "X-Forwarded-For: \(client)\r\n") + body)
            return connection.readReply().status
        }
        #expect(upload(for: "198.51.100.9") == 201)
        #expect(upload(for: "198.51.100.9") == 429, "a new connection, the same client")
        #expect(upload(for: "198.51.100.10") == 201)
    }

    /// After an upload, the next requests on the connection are answered in order.
    @Test func pipelinedRequestsAfterAnUploadAreAnsweredInOrder() throws {
        let fixture = try AttachmentFixture()
        defer { fixture.stop() }
        let body = sample(.png, count: 5000)
        let client = fixture.client()
        client.send(
            fixture.uploadRequest(body) + Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
                + fixture.uploadRequest(body, filename: "second.png"))
        let first = client.readReply()
        #expect(first.status == 201 && first.attachment?["filename"] as? String == "photo.png")
        let health = client.readReply()
        #expect(health.status == 200 && String(decoding: health.body, as: UTF8.self) == #"{"status":"ok"}"#)
        let second = client.readReply()
        #expect(second.status == 201 && second.attachment?["filename"] as? String == "second.png")
    }

    /// `Expect: 100-continue` (curl's, for bodies over 1 KiB): the go-ahead comes
    /// only once the head is accepted; a refused head gets its answer instead.
    @Test func expectContinueIsAnsweredOnceTheHeadIsAccepted() throws {
        let fixture = try AttachmentFixture { $0.attachmentsMaxBytes = 10_000 }
        defer { fixture.stop() }
        let body = sample(.png, count: 5000)
        let client = fixture.client()
        client.send(fixture.uploadHead(length: body.count, extra: "Expect: 100-continue\r\n"))
        #expect(client.readHead() == "HTTP/1.1 100 Continue\r\n\r\n")
        client.send(body)
        #expect(client.readReply().status == 201)
        let refused = fixture.client()
        refused.send(fixture.uploadHead(token: "bad", length: body.count, extra: "Expect: 100-continue\r\n"))
        #expect(refused.readReply().status == 401)
    }

    @Test func storageFailuresMapToTheirStatus() throws {
        let backend = MemoryAttachments()
        let fixture = try AttachmentFixture(backend: backend) { $0.attachmentsUploadsPerMinute = 0 }
        defer { fixture.stop() }
        backend.finishFailure = .quotaExceeded
        let quota = fixture.upload(sample(.png, count: 10))
        #expect(quota.status == 413 && quota.errorCode == "too_large")
        backend.finishFailure = .imageRefused("declares 100000 x 100000 pixels")
        #expect(fixture.upload(sample(.png, count: 10)).status == 415)
        backend.finishFailure = .unavailable("disk full")
        let unavailable = fixture.upload(sample(.png, count: 10))
        #expect(unavailable.status == 503 && unavailable.header("Retry-After") == "1")
        backend.finishFailure = .noSession
        #expect(fixture.upload(sample(.png, count: 10)).status == 404)
        backend.finishFailure = nil
        backend.refusesUploads = true
        let busy = fixture.upload(sample(.png, count: 10))
        #expect(busy.status == 503 && busy.errorCode == "overloaded")
        #expect(fixture.uploads("failed") == 1 && fixture.uploads("overloaded") == 1)
        fixture.settle()
        #expect(fixture.service.budget.inUse == 0)
    }

    /// The widget uploads from the host page's origin with a bearer token: the
    /// preflight allows POST, and every answer names the origin.
    @Test func uploadsAreOpenToOtherOrigins() throws {
        let fixture = try AttachmentFixture { $0.allowedOrigins = ["https://shop.example"] }
        defer { fixture.stop() }
        let path = "/api/v1/sessions/\(fixture.sessionID)/attachments"
        let preflight = fixture.get(
            path, method: "OPTIONS",
            headers: "Origin: https://shop.example\r\nAccess-Control-Request-Method: POST\r\n"
                + "Access-Control-Request-Headers: authorization, content-type\r\n")
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Origin") == "https://shop.example")
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        let body = sample(.png, count: 10)
        let client = fixture.client()
        client.send(fixture.uploadHead(length: body.count, extra: "Origin: https://shop.example\r\n") + body)
        let reply = client.readReply()
        #expect(reply.status == 201 && reply.header("Access-Control-Allow-Origin") == "https://shop.example")
        let other = fixture.client()
        other.send(fixture.uploadHead(length: body.count, extra: "Origin: https://evil.example\r\n") + body)
        #expect(other.readReply().header("Access-Control-Allow-Origin") == nil)
    }

    /// With attachments disabled the routes are gone.
    @Test func disabledTheRoutesAreGone() throws {
        let disabled = try ChatFixture { $0.attachmentsEnabled = false }
        defer { disabled.stop() }
        let client = disabled.embedded.client()
        client.send(
            "POST /api/v1/sessions/\(UUID().uuidString)/attachments?filename=a HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
        )
        #expect(client.readReply().status == 404)
        let other = disabled.embedded.client()
        other.send("GET /api/v1/attachments/x?exp=1&sig=2 HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(other.readReply().status == 404)
        #expect(disabled.embedded.context.attachments == nil && disabled.embedded.context.attachmentStore == nil)
    }
}
