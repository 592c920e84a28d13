import SwitchboardJSON
import SwitchboardReaders

/// `GET /api/v1/admin/live-chat/analytics`:
/// `{"workspace_id","from","to","sessions_opened","sessions_closed","messages_by_role":{role: n},
///   "first_response_seconds":{"count","median","p90"},"wait_seconds":{"count","median","p90"},"unanswered"}`.
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
        distribution(
            "first_response_seconds", figures.firstResponseCount, figures.firstResponseMedianSeconds,
            figures.firstResponseP90Seconds, &writer)
        distribution("wait_seconds", figures.waitCount, figures.waitMedianSeconds, figures.waitP90Seconds, &writer)
        writer.key("unanswered")
        writer.int(figures.unanswered)
        writer.endObject()
        return writer.bytes
    }

    /// `"name":{"count","median","p90"}`, the figures null when there is none.
    private static func distribution(
        _ name: String, _ count: Int, _ median: Double?, _ p90: Double?, _ writer: inout JSONWriter
    ) {
        writer.key(name)
        writer.beginObject()
        writer.key("count")
        writer.int(count)
        writer.key("median")
        if let median { writer.double(median) } else { writer.null() }
        writer.key("p90")
        if let p90 { writer.double(p90) } else { writer.null() }
        writer.endObject()
    }
}
