import Foundation
import SwitchboardAttachments
import SwitchboardAuth
import SwitchboardSystem
import Testing

/// A message with attachments through the whole gateway, in-process over a
/// real PostgreSQL: the upload row as the attachment store leaves it, the
/// `send`, the operator's `message`, the history page, and a second send of
/// the same upload refused.
@Suite(.serialized) struct AttachmentConversationTests {
    private let signer = AttachmentURLSigner(jwtSecret: Array(ChatFixture.secret.utf8))

    /// The attachment objects of a message, checked against the gateway's JWT secret.
    private func checkSigned(
        _ message: [String: Any], id: String, sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        let objects = try #require(message["attachments"] as? [[String: Any]], sourceLocation: sourceLocation)
        #expect(objects.count == 1, sourceLocation: sourceLocation)
        #expect(objects.first?["id"] as? String == id, sourceLocation: sourceLocation)
        #expect(objects.first?["filename"] as? String == "receipt.png", sourceLocation: sourceLocation)
        #expect(objects.first?["width"] as? Int == 800, sourceLocation: sourceLocation)
        for (key, variant) in [("url", AttachmentVariant.original), ("thumbnail_url", .thumbnail)] {
            let url = try #require(URLComponents(string: objects.first?[key] as? String ?? ""))
            let suffix = variant == .thumbnail ? "/thumbnail" : ""
            #expect(url.path == "/api/v1/attachments/\(id)\(suffix)", sourceLocation: sourceLocation)
            let items = Dictionary(uniqueKeysWithValues: (url.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            let expires = try #require(Int64(items["exp"] ?? ""), sourceLocation: sourceLocation)
            let now = UnixClock.nowSeconds()
            #expect(
                expires > now + 3500 && expires <= now + 3600, "attachments.url_ttl_s's default",
                sourceLocation: sourceLocation)
            #expect(
                signer.verify(id: id, variant: variant, expires: expires, signature: items["sig"] ?? "", now: now)
                    == .valid, sourceLocation: sourceLocation)
        }
    }

    @Test func aVisitorSendsAnUploadAndEveryoneSeesItWithSignedURLs() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1", name: "Vera")
        let sessionID = try fixture.createSession(visitor)
        let ken = try fixture.client(.operator, "op-ken", name: "Ken")
        try fixture.join(ken, sessionID)
        let upload = UUID().uuidString.lowercased()
        try fixture.database.connect().query(
            """
            INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename, content_type,
                                     size, sha256, width, height, storage, thumbnail_size)
            SELECT $1::uuid, workspace_id, id, 'visitor', 'v-1', 'receipt.png', 'image/png', 48213, repeat('9b', 32),
                   800, 600, 'postgres', 5120
              FROM chat_sessions WHERE id = $2::uuid
            """, [upload, sessionID])

        let ack = try visitor.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "a1", "body": "",
            "attachments": [upload.uppercased()],
        ])
        #expect(ack.type == "ack" && ack.seq == 1, "\(ack)")
        try checkSigned(try ken.next("message"), id: upload)
        #expect(
            try fixture.count(
                "SELECT count(*) FROM attachments WHERE id = $1::uuid AND message_id = $2::uuid AND sent_at IS NOT NULL",
                [upload, ack["id"] as? String]) == 1)

        let history = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/sessions/\(sessionID)/messages",
            token: TestTokens.make(role: .operator, workspace: fixture.workspace, sub: "op-ken", name: "Ken"))
        #expect(history.status == 200)
        try checkSigned(try #require((history.json["messages"] as? [[String: Any]])?.first), id: upload)

        // Sent once: another message may not send it again; the retry of the first is its duplicate.
        let again = try visitor.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "a2", "body": "again", "attachments": [upload],
        ])
        #expect(again.type == "error" && again.code == "bad_request")
        #expect(
            again["message"] as? String
                == "attachment \(upload) is not an upload of yours to session \(sessionID) that no message has sent yet; nothing was stored"
        )
        let retry = try visitor.request([
            "type": "send", "session_id": sessionID, "client_msg_id": "a1", "body": "", "attachments": [upload],
        ])
        #expect(retry.type == "ack" && retry["duplicate"] as? Bool == true && retry.seq == 1)
    }
}
