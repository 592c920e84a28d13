import SwitchboardAttachments
import SwitchboardAuth
import SwitchboardJSON

/// Server frames as compact JSON text (one WebSocket text message each), with keys in the
/// order of docs/protocol.md's examples. One encoder per event loop: it keeps a single `JSONWriter`
/// so its buffer's capacity is reused; each method returns that frame's bytes. The bytes share
/// that buffer: write them and drop them (replies), or copy them before the next call if they
/// are kept (the gateway's `SharedFrame` does), or the kept frame pins the whole buffer.
public struct ServerFrameEncoder: Sendable {
    var writer = JSONWriter(capacity: 512)
    /// Signs the URLs of messages' attachments. Every encoder that writes
    /// messages (a core's, the history API's) has them; others need none.
    public var attachmentLinks: AttachmentLinks?

    public init(attachmentLinks: AttachmentLinks? = nil) {
        self.attachmentLinks = attachmentLinks
    }

    public mutating func welcome(
        connectionID: String, identity: Identity, heartbeatSeconds: Int, maxMessageBytes: Int, maxBodyBytes: Int,
        operatorsAvailable: Bool? = nil
    ) -> [UInt8] {
        begin("welcome", ref: nil)
        writer.key("conn_id")
        writer.string(connectionID)
        writer.key("user")
        writer.beginObject()
        writer.key("id")
        writer.string(identity.id)
        writer.key("role")
        writer.string(identity.role.rawValue)
        writer.key("name")
        optionalString(identity.name)
        writer.endObject()
        writer.key("workspace_id")
        writer.string(identity.workspaceID)
        writer.key("heartbeat_s")
        writer.int(heartbeatSeconds)
        writer.key("limits")
        writer.beginObject()
        writer.key("max_message_bytes")
        writer.int(maxMessageBytes)
        writer.key("max_body_bytes")
        writer.int(maxBodyBytes)
        writer.endObject()
        // Routing's: whether an operator is available in the workspace (nil: no routing on this gateway).
        if let operatorsAvailable {
            writer.key("operators_available")
            writer.bool(operatorsAvailable)
        }
        return end()
    }

    public mutating func joined(ref: String?, sessionID: String, lastSeq: Int64, truncated: Bool) -> [UInt8] {
        begin("joined", ref: ref)
        writer.key("session_id")
        writer.string(sessionID)
        writer.key("last_seq")
        writer.int(lastSeq)
        writer.key("truncated")
        writer.bool(truncated)
        return end()
    }

    public mutating func left(ref: String?, sessionID: String) -> [UInt8] {
        begin("left", ref: ref)
        writer.key("session_id")
        writer.string(sessionID)
        return end()
    }

    public mutating func ack(
        ref: String?, sessionID: String, clientMessageID: String, seq: Int64, id: String, createdAt: String,
        duplicate: Bool
    ) -> [UInt8] {
        begin("ack", ref: ref)
        writer.key("session_id")
        writer.string(sessionID)
        writer.key("client_msg_id")
        writer.string(clientMessageID)
        writer.key("seq")
        writer.int(seq)
        writer.key("id")
        writer.string(id)
        writer.key("created_at")
        writer.string(createdAt)
        writer.key("duplicate")
        writer.bool(duplicate)
        return end()
    }

    /// Encoded once per committed message and the bytes shared by every subscriber, so it writes
    /// straight from the message's strings into the reused buffer.
    /// Attachments get URLs valid for the links' TTL from now.
    public mutating func message(_ message: ChatMessage) -> [UInt8] {
        begin("message", ref: nil)
        writer.key("session_id")
        writer.string(message.sessionID)
        var expires: Int64?
        messageFields(message, expires: &expires)
        return end()
    }

    /// A message's own fields, shared by the `message` frame and the history
    /// page. `expires` is the URLs' expiry: read from the clock at the first
    /// attachment of the frame or page, then the same for all of it.
    mutating func messageFields(_ message: ChatMessage, expires: inout Int64?) {
        writer.key("seq")
        writer.int(message.seq)
        writer.key("id")
        writer.string(message.id)
        writer.key("client_msg_id")
        writer.string(message.clientMessageID)
        writer.key("kind")
        writer.string(message.kind)
        writer.key("body")
        writer.string(message.body)
        writer.key("sender")
        participant(message.sender)
        writer.key("created_at")
        writer.string(message.createdAt)
        if let meta = message.meta {
            writer.key("meta")
            writer.trustedJSON(meta)
        }
        if !message.attachments.isEmpty { attachments(message.attachments, expires: &expires) }
    }

    /// `"attachments":[{...,"url":...,"thumbnail_url":...}]`, omitted when a message has none.
    mutating func attachments(_ list: [AttachmentObject], expires: inout Int64?) {
        guard let links = attachmentLinks else {
            assertionFailure("a message with attachments reached an encoder without attachment links")
            return
        }
        let expiry = expires ?? links.expiry()
        expires = expiry
        writer.key("attachments")
        writer.beginArray()
        for object in list { object.appendJSON(to: &writer, signer: links.signer, expires: expiry) }
        writer.endArray()
    }

    public mutating func typing(sessionID: String, sender: Participant, state: Bool) -> [UInt8] {
        begin("typing", ref: nil)
        writer.key("session_id")
        writer.string(sessionID)
        writer.key("sender")
        participant(sender)
        writer.key("state")
        writer.bool(state)
        return end()
    }

    public mutating func read(sessionID: String, reader: Participant, seq: Int64) -> [UInt8] {
        begin("read", ref: nil)
        writer.key("session_id")
        writer.string(sessionID)
        writer.key("reader")
        participant(reader)
        writer.key("seq")
        writer.int(seq)
        return end()
    }

    public mutating func error(_ error: ChatError) -> [UInt8] {
        begin("error", ref: error.ref)
        writer.key("code")
        writer.string(error.code.rawValue)
        writer.key("message")
        writer.string(error.message)
        return end()
    }

    public mutating func pong(ref: String?) -> [UInt8] {
        begin("pong", ref: ref)
        return end()
    }

    // MARK: Shared pieces

    /// Opens the frame object with `type` and, when present, `ref` (omitted when nil).
    mutating func begin(_ type: String, ref: String?) {
        writer.reset()
        writer.beginObject()
        writer.key("type")
        writer.string(type)
        if let ref {
            writer.key("ref")
            writer.string(ref)
        }
    }

    mutating func end() -> [UInt8] {
        writer.endObject()
        return writer.bytes
    }

    mutating func participant(_ participant: Participant) {
        writer.beginObject()
        writer.key("id")
        writer.string(participant.id)
        writer.key("role")
        writer.string(participant.role)
        writer.key("name")
        optionalString(participant.name)
        writer.endObject()
    }

    mutating func optionalString(_ value: String?) {
        if let value { writer.string(value) } else { writer.null() }
    }
}
