import Foundation
import SwitchboardAdmission
import SwitchboardAttachments
import SwitchboardAuth
import SwitchboardEmbedded
import SwitchboardSystem

@testable import SwitchboardServer

/// One HTTP response as a test reads it off a client.
struct AttachmentReply {
    var status: Int
    var head: String
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    /// The `error.code` of an error body.
    var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }

    /// The attachment object of a 201.
    var attachment: [String: Any]? { json?["attachment"] as? [String: Any] }
}

extension ClientStream {
    /// Reads one response: its head, then its body by Content-Length (none for
    /// `headOnly`, a 1xx, 204 or 304).
    func readReply(headOnly: Bool = false) -> AttachmentReply {
        let head = readHead()
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") ?? 0
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var reply = AttachmentReply(status: status, head: head, headers: headers, body: [])
        let noBody = headOnly || status < 200 || status == 204 || status == 304
        if !noBody, let length = reply.header("Content-Length").flatMap({ Int($0) }), length > 0 {
            reply.body = read(count: length)
        }
        return reply
    }
}

/// A gateway in-process with in-memory attachment storage, on its own
/// database, with one visitor's session to upload to.
final class AttachmentFixture {
    let chat: ChatFixture
    let backend: MemoryAttachments
    let sessionID: String
    let visitorToken: String
    let operatorToken: String

    init(
        backend: MemoryAttachments = MemoryAttachments(), sizes: AttachmentService.Sizes = .standard,
        _ configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        self.backend = backend
        chat = try ChatFixture(attachments: backend, attachmentSizes: sizes, configure)
        do {
            let visitor = try chat.client(.visitor, "visitor-1")
            sessionID = try chat.createSession(visitor)
        } catch {
            chat.stop()
            throw error
        }
        visitorToken = TestTokens.make(role: .visitor, workspace: chat.workspace, sub: "visitor-1")
        operatorToken = TestTokens.make(role: .operator, workspace: chat.workspace, sub: "op-ken", name: "Ken")
    }

    func stop() { chat.stop() }

    var gateway: EmbeddedGateway { chat.embedded }
    var service: AttachmentService { gateway.context.attachments! }
    var signer: AttachmentURLSigner { service.signer }

    /// An HTTP client from `peer` (loopback, exempt from per-address limits, by default).
    func client(from peer: IPAddress = IPAddress(ipv4: 0x7f00_0001)) -> EmbeddedClient {
        gateway.client(from: peer)
    }

    /// The head of an upload of `length` bytes (nil: chunked).
    func uploadHead(
        session: String? = nil, token: String? = nil, filename: String? = "photo.png",
        contentType: String? = "image/png",
        length: Int?, extra: String = ""
    ) -> [UInt8] {
        var head = "POST /api/v1/sessions/\(session ?? sessionID)/attachments"
        if let filename {
            head += "?filename=" + filename.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        head += " HTTP/1.1\r\nHost: gateway\r\n"
        let token = token ?? visitorToken
        if !token.isEmpty { head += "Authorization: Bearer \(token)\r\n" }
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        head += length.map { "Content-Length: \($0)\r\n" } ?? "Transfer-Encoding: chunked\r\n"
        return Array((head + extra + "\r\n").utf8)
    }

    /// A whole upload request with a Content-Length.
    func uploadRequest(
        _ body: [UInt8], token: String? = nil, filename: String = "photo.png", contentType: String? = "image/png"
    )
        -> [UInt8]
    {
        uploadHead(token: token, filename: filename, contentType: contentType, length: body.count) + body
    }

    /// Uploads `body` on a new connection and reads the answer.
    func upload(_ body: [UInt8], filename: String = "photo.png", contentType: String? = "image/png") -> AttachmentReply
    {
        let client = client()
        client.send(uploadRequest(body, filename: filename, contentType: contentType))
        return client.readReply()
    }

    /// The path of an attachment's signed URL, expiring `ttl` from now.
    func url(_ id: String, variant: AttachmentVariant = .original, ttl: Int64 = 3600) -> String {
        signer.path(id: id, variant: variant, expires: UnixClock.nowSeconds() + ttl)
    }

    /// A GET (or HEAD) of `path` on a new connection, with extra header lines.
    func get(_ path: String, method: String = "GET", headers: String = "") -> AttachmentReply {
        let client = client()
        client.send("\(method) \(path) HTTP/1.1\r\nHost: gateway\r\n\(headers)\r\n")
        return client.readReply(headOnly: method == "HEAD")
    }

    /// Runs what storage and the readers queued until `done` holds (or 5 s pass).
    func pump(storing: Bool = false, until done: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while !done() {
            if Date() > deadline { return false }
            if storing { backend.storeWaiting() }
            if !gateway.runPending() { usleep(200) }
        }
        return true
    }

    /// Runs what is queued for the loops until nothing is (storage's reports included).
    func settle() {
        while gateway.runPending() {}
    }

    /// `switchboard_attachment_uploads_total{outcome=...}` as rendered.
    func uploads(_ outcome: String) -> Int {
        let text = gateway.context.metrics.renderString()
        let prefix = "switchboard_attachment_uploads_total{outcome=\"\(outcome)\"} "
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return -1 }
        return Int(line.dropFirst(prefix.count)) ?? -1
    }
}

/// Bytes that begin as `type` (its magic number), then a pattern that never repeats within 251 bytes.
func sample(_ type: AttachmentType, count: Int, seed: Int = 0) -> [UInt8] {
    let magic: [UInt8] =
        switch type {
        case .png: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        case .jpeg: [0xFF, 0xD8, 0xFF, 0xE0]
        case .gif: Array("GIF89a".utf8)
        case .webp: Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
        case .pdf: Array("%PDF-1.7\n".utf8)
        case .text: []
        }
    if type == .text {
        return (0..<count).map { UInt8(ascii: "a") + UInt8(($0 + seed) % 26) }
    }
    return Array(
        (magic + (0..<max(0, count - magic.count)).map { UInt8(truncatingIfNeeded: ($0 + seed) % 251) }).prefix(count))
}

/// `body` in chunked framing, in chunks of `size` (with an extension on every other one).
func chunked(_ body: [UInt8], size: Int) -> [UInt8] {
    var out: [UInt8] = []
    var start = 0
    var index = 0
    while start < body.count {
        let end = min(body.count, start + size)
        out += Array((String(end - start, radix: 16) + (index % 2 == 1 ? ";n=\(index)" : "") + "\r\n").utf8)
        out += body[start..<end] + [13, 10]
        start = end
        index += 1
    }
    return out + Array("0\r\n\r\n".utf8)
}

/// `bytes` in pieces of `size` (the last shorter).
func pieces(_ bytes: [UInt8], size: Int) -> [[UInt8]] {
    stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }
}
