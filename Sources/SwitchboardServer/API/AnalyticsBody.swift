import SwitchboardJSON
import SwitchboardReaders

/// `GET /api/v1/admin/live-chat/analytics`:
/// `{"workspace_id","from","to","sessions_opened","sessions_closed","messages_by_role":{role: n},
///   "first_response_seconds":{"count","median","p90"}}`.
enum AnalyticsBody {
    static func encode(_ figures: Analytics, workspaceID: String, from: String, to: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("workspace_id")
        writer.string(workspaceID)
        writer.key("from")
        writer.string(from)
        writer.key("to")
        writer.string(to)
        writer.key("sessions_opened")
        writer.int(figures.sessionsOpened)
        writer.key("sessions_closed")
        writer.int(figures.sessionsClosed)
        writer.key("messages_by_role")
        writer.beginObject()
        for role in figures.messagesByRole.keys.sorted() {
            writer.key(role)
            writer.int(figures.messagesByRole[role] ?? 0)
        }
        writer.endObject()
        writer.key("first_response_seconds")
        writer.beginObject()
        writer.key("count")
        writer.int(figures.firstResponseCount)
        writer.key("median")
        if let median = figures.firstResponseMedianSeconds { writer.double(median) } else { writer.null() }
        writer.key("p90")
        if let p90 = figures.firstResponseP90Seconds { writer.double(p90) } else { writer.null() }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
