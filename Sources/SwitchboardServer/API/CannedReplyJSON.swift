import SwitchboardJSON
import SwitchboardReaders

/// Bodies of the canned replies API: a reply is
/// `{"id","shortcut","body","created_by","created_at","updated_at"}`.
enum CannedReplyJSON {
    /// `{"canned_replies":[...]}`
    static func list(_ replies: [CannedReply]) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("canned_replies")
        writer.beginArray()
        for reply in replies { self.reply(reply, &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// `{"canned_reply":{...}}`
    static func one(_ reply: CannedReply) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("canned_reply")
        self.reply(reply, &writer)
        writer.endObject()
        return writer.bytes
    }

    private static func reply(_ reply: CannedReply, _ writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.string(reply.id)
        writer.key("shortcut")
        writer.string(reply.shortcut)
        writer.key("body")
        writer.string(reply.body)
        writer.key("created_by")
        writer.string(reply.createdBy)
        writer.key("created_at")
        writer.string(reply.createdAt)
        writer.key("updated_at")
        writer.string(reply.updatedAt)
        writer.endObject()
    }
}
