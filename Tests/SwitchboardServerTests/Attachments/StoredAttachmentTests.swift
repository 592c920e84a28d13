import Foundation
import SwitchboardAttachments
import SwitchboardCrypto
import SwitchboardSystem
import Testing

@testable import SwitchboardServer

/// Uploads and downloads end to end: a live gateway on sockets, its attachment
/// workers on PostgreSQL, with each storage kind (docs/attachments.md); and two
/// gateways on one database, one taking the upload and the other serving it.
@Suite(.serialized) struct StoredAttachmentTests {
    /// A live gateway with the real attachment store, and a visitor's session.
    final class Live {
        let chat: ChatFixture
        let folder: String?
        let sessionID: String
        let visitorToken: String
        let operatorToken: String

        init(storage: String, _ configure: @escaping (inout Configuration) -> Void = { _ in }) throws {
            let folder =
                storage == "filesystem"
                ? FileManager.default.temporaryDirectory.appendingPathComponent("sb-attachments-\(UUID().uuidString)")
                    .path : nil
            self.folder = folder
            chat = try ChatFixture(live: true) {
                $0.attachmentsStorage = storage
                if let folder { $0.attachmentsPath = folder }
                configure(&$0)
            }
            let visitor = try chat.client(.visitor, "visitor-1")
            sessionID = try chat.createSession(visitor)
            visitorToken = TestTokens.make(role: .visitor, workspace: chat.workspace, sub: "visitor-1")
            operatorToken = TestTokens.make(role: .operator, workspace: chat.workspace, sub: "op-ken", name: "Ken")
        }

        func stop() {
            chat.stop()
            if let folder { try? FileManager.default.removeItem(atPath: folder) }
        }

        var server: Server { (chat.gateway as! RunningServer).server }

        /// A socket to `port` (this gateway's by default) that gives up on a stalled write after 10 s.
        func client(port: UInt16? = nil) throws -> RawClient {
            let client = try RawClient(port: port ?? chat.port, timeoutSeconds: 10)
            var timeout = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(client.fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            return client
        }

        func head(filename: String, type: String?, length: Int?, token: String? = nil) -> [UInt8] {
            var head = "POST /api/v1/sessions/\(sessionID)/attachments?filename=\(filename) HTTP/1.1\r\nHost: x\r\n"
            head += "Authorization: Bearer \(token ?? visitorToken)\r\n"
            if let type { head += "Content-Type: \(type)\r\n" }
            head += length.map { "Content-Length: \($0)\r\n" } ?? "Transfer-Encoding: chunked\r\n"
            return Array((head + "\r\n").utf8)
        }

        /// Uploads `body` in writes of `writeSize` and reads the answer.
        func upload(
            _ body: [UInt8], filename: String = "photo.png", type: String? = "image/png", chunkedBy: Int? = nil,
            writeSize: Int = 1 << 20, port: UInt16? = nil
        ) throws -> AttachmentReply {
            let client = try client(port: port)
            let request =
                head(filename: filename, type: type, length: chunkedBy == nil ? body.count : nil)
                + (chunkedBy.map { chunked(body, size: $0) } ?? body)
            for piece in pieces(request, size: writeSize) { client.send(piece) }
            return client.readReply()
        }

        func get(
            _ path: String, method: String = "GET", headers: String = "", port: UInt16? = nil
        ) throws
            -> AttachmentReply
        {
            let client = try client(port: port)
            client.send("\(method) \(path) HTTP/1.1\r\nHost: x\r\n\(headers)\r\n")
            return client.readReply(headOnly: method == "HEAD")
        }

        /// Waits (up to 5 s) for the in-flight budget to be all given back.
        func budgetReturned() -> Bool {
            let budget = server.context.attachments!.budget
            let deadline = Date().addingTimeInterval(5)
            while budget.inUse != 0 && Date() < deadline { usleep(5000) }
            return budget.inUse == 0
        }
    }

    static let kinds = ["postgres", "filesystem"]

    /// 1.2 MB up through the window (whole chunks of 256 KiB), down again: the
    /// same bytes, with the headers, a range, a validator and HEAD.
    @Test(arguments: kinds) func anUploadIsStoredAndServed(storage: String) throws {
        let live = try Live(storage: storage)
        defer { live.stop() }
        let body = sample(.pdf, count: 1_234_567)
        let reply = try live.upload(body, filename: "receipt.pdf", type: "application/pdf")
        #expect(reply.status == 201, "\(reply.head)\(String(decoding: reply.body, as: UTF8.self))")
        let object = try #require(reply.attachment)
        #expect(object["size"] as? Int == body.count)
        #expect(object["sha256"] as? String == SHA256.hex(SHA256.hash(body)))
        #expect(object["content_type"] as? String == "application/pdf")
        let url = try #require(object["url"] as? String)
        let download = try live.get(url)
        #expect(download.status == 200 && download.body == body)
        #expect(download.header("Content-Type") == "application/pdf")
        #expect(download.header("Content-Disposition")?.hasPrefix("attachment") == true)
        #expect(download.header("ETag") == "\"\(SHA256.hex(SHA256.hash(body)))\"")
        #expect(download.header("Content-Security-Policy") == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        let range = try live.get(url, headers: "Range: bytes=262140-262150\r\n")
        #expect(range.status == 206 && range.body == Array(body[262_140...262_150]), "across a chunk's edge")
        #expect(range.header("Content-Range") == "bytes 262140-262150/1234567")
        let notModified = try live.get(url, headers: "If-None-Match: \(download.header("ETag") ?? "")\r\n")
        #expect(notModified.status == 304)
        let head = try live.get(url, method: "HEAD")
        #expect(head.status == 200 && head.header("Content-Length") == "1234567")
        #expect(live.budgetReturned())
        #expect(try live.chat.count("SELECT count(*) FROM attachments WHERE session_id = $1", [live.sessionID]) == 1)
        // Each kind keeps the bytes where it says.
        let chunks = try live.chat.count("SELECT count(*) FROM attachment_chunks WHERE variant = 0", [])
        if let folder = live.folder {
            let files = FileManager.default.enumerator(atPath: folder)?.allObjects.count ?? 0
            #expect(chunks == 0 && files >= 1, "\(chunks) chunks, \(files) entries under \(folder)")
        } else {
            #expect(chunks == 5, "1,234,567 bytes in chunks of 256 KiB")
        }
    }

    /// A chunked body in small writes, and text (known only at its end) as a
    /// download with its name.
    @Test(arguments: kinds) func aChunkedTextUploadInSmallWrites(storage: String) throws {
        let live = try Live(storage: storage)
        defer { live.stop() }
        let body = sample(.text, count: 300_001)
        let reply = try live.upload(
            body, filename: "notes.txt", type: "text/plain; charset=utf-8", chunkedBy: 7_777, writeSize: 1000)
        #expect(reply.status == 201, "\(reply.head)")
        let download = try live.get(try #require(reply.attachment?["url"] as? String))
        #expect(download.status == 200 && download.body == body)
        #expect(download.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(download.header("Content-Disposition") == "attachment; filename*=UTF-8''notes.txt")
    }

    /// Refusals with the real store: over max_bytes unread, markup, the session's
    /// quota; a deleted session's attachment is gone.
    @Test(arguments: kinds) func refusalsAndDeletion(storage: String) throws {
        let live = try Live(storage: storage) {
            $0.attachmentsMaxBytes = 200_000
            $0.attachmentsSessionQuotaBytes = 300_000
        }
        defer { live.stop() }
        let tooLarge = try live.client()
        tooLarge.send(live.head(filename: "big.png", type: "image/png", length: 200_001))
        let refused = tooLarge.readReply()
        #expect(refused.status == 413 && refused.header("Connection") == "close")
        let html = Array("<html><body>hi</body></html>".utf8) + sample(.text, count: 1000)
        #expect(try live.upload(html, filename: "a.png").status == 415)
        let first = try live.upload(sample(.pdf, count: 180_000), filename: "a.pdf", type: "application/pdf")
        #expect(first.status == 201)
        let overQuota = try live.upload(
            sample(.pdf, count: 180_000, seed: 1), filename: "b.pdf", type: "application/pdf")
        #expect(overQuota.status == 413 && overQuota.errorCode == "too_large", "\(overQuota.head)")
        let url = try #require(first.attachment?["url"] as? String)
        #expect(try live.get(url).status == 200)
        let deleted = try HTTPTestClient.request(
            live.chat.gateway, "DELETE", "/api/v1/sessions/\(live.sessionID)", token: live.operatorToken)
        #expect(deleted.status == 204)
        #expect(try live.get(url).status == 404)
        #expect(try live.upload(sample(.png, count: 10)).status == 404, "no uploads to a deleted session")
        #expect(live.budgetReturned())
        #expect(try live.chat.count("SELECT count(*) FROM attachments", []) == 1)
    }

    /// A gateway whose in-flight budget is one window serves a 6 MB upload: its
    /// reading pauses and resumes with the workers, and another upload meanwhile
    /// is told to retry.
    @Test(arguments: kinds) func oneWindowForTheWholeGateway(storage: String) throws {
        let live = try Live(storage: storage) { $0.attachmentsMaxInFlightBytes = 256 * 1024 }
        defer { live.stop() }
        let body = sample(.pdf, count: 6_000_000)
        let client = try live.client()
        client.send(live.head(filename: "a.pdf", type: "application/pdf", length: body.count))
        client.send(Array(body[..<100_000]))
        // The first upload holds the whole budget once its head is read; only then is another one refused.
        let budget = live.server.context.attachments!.budget
        let deadline = Date().addingTimeInterval(5)
        while budget.inUse == 0 && Date() < deadline { usleep(2000) }
        #expect(budget.inUse > 0)
        let other = try live.upload(sample(.png, count: 10))
        #expect(other.status == 503 && other.header("Retry-After") == "1")
        client.send(Array(body[100_000...]))
        let reply = client.readReply()
        #expect(reply.status == 201, "\(reply.head)")
        let download = try live.get(try #require(reply.attachment?["url"] as? String))
        #expect(download.body == body)
        #expect(live.budgetReturned())
    }

    /// Two gateways on one database (and, for files, one folder): uploaded
    /// through A, served by B.
    @Test(arguments: kinds) func uploadedOnOneNodeServedByAnother(storage: String) throws {
        let live = try Live(storage: storage)
        defer { live.stop() }
        let other = try RunningServer {
            $0.databaseURL = live.chat.database.url
            $0.jwtSecret = ChatFixture.secret
            $0.attachmentsStorage = storage
            if let folder = live.folder { $0.attachmentsPath = folder }
        }
        defer { other.stop() }
        let body = sample(.pdf, count: 700_000)
        let reply = try live.upload(body, filename: "label.pdf", type: "application/pdf")
        #expect(reply.status == 201)
        let url = try #require(reply.attachment?["url"] as? String)
        let download = try live.get(url, port: other.port)
        #expect(download.status == 200 && download.body == body)
        #expect(download.header("Content-Type") == "application/pdf")
        // And the other way round, with a photo and its thumbnail.
        let photo = try fixtureImage("photo-gps.jpg")
        let second = try live.upload(photo, filename: "a.jpg", type: "image/jpeg", port: other.port)
        #expect(second.status == 201)
        let back = try live.get(try #require(second.attachment?["url"] as? String))
        #expect(back.status == 200 && back.body == photo)
        let thumbnail = try live.get(try #require(second.attachment?["thumbnail_url"] as? String))
        #expect(thumbnail.status == 200 && thumbnail.header("Content-Type") == "image/jpeg")
    }
}

/// An upload and its download over TLS, by Python's ssl and http.client: the
/// pauses of a full window leave decrypted bytes in the cipher, which must
/// come out first when reading resumes.
@Suite(.serialized) struct TLSAttachmentTests {
    static let clientScript = #"""
        import hashlib, http.client, json, os, ssl, sys
        port, cafile, session, token = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
        context = ssl.create_default_context(cafile=cafile)
        body = b"%PDF-1.7\n" + os.urandom(3_000_000)
        connection = http.client.HTTPSConnection("localhost", port, context=context, timeout=20)
        connection.request("POST", f"/api/v1/sessions/{session}/attachments?filename=a.pdf", body=body,
                           headers={"Authorization": f"Bearer {token}", "Content-Type": "application/pdf"})
        answer = connection.getresponse()
        text = answer.read()
        assert answer.status == 201, (answer.status, text)
        attachment = json.loads(text)["attachment"]
        assert attachment["sha256"] == hashlib.sha256(body).hexdigest(), attachment
        connection.request("GET", attachment["url"])
        download = connection.getresponse()
        data = download.read()
        assert download.status == 200 and data == body, (download.status, len(data))
        print("ok", len(data))
        """#

    @Test func anUploadAndItsDownloadOverTLS() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-tls-att-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = try #require(ExternalProcess.which("openssl"), "openssl makes the test certificate")
        let generated = try ExternalProcess.run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            ])
        try #require(generated.status == 0, "openssl req failed: \(generated.output)")
        let chat = try ChatFixture(live: true) {
            $0.tlsListen = [SocketAddress(host: "127.0.0.1", port: 0, family: .inet)]
            $0.tlsCertificate = cert
            $0.tlsPrivateKey = key
        }
        defer { chat.stop() }
        let visitor = try chat.client(.visitor, "visitor-1")
        let session = try chat.createSession(visitor)
        let token = TestTokens.make(role: .visitor, workspace: chat.workspace, sub: "visitor-1")
        let tlsPort = try #require((chat.gateway as! RunningServer).tlsPort)
        let script = directory.appendingPathComponent("client.py").path
        try Self.clientScript.write(toFile: script, atomically: true, encoding: .utf8)
        let python = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_PYTHON"] ?? ExternalProcess.which("python3")
        let interpreter = try #require(python, "python3 is needed for the independent TLS client")
        let result = try ExternalProcess.run(interpreter, [script, String(tlsPort), cert, session, token])
        #expect(result.status == 0 && result.output.contains("ok 3000009"), "client output: \(result.output)")
    }
}
