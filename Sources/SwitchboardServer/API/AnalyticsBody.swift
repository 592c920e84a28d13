import SwitchboardJSON
import SwitchboardReaders

/// `GET /api/v1/admin/live-chat/analytics`:
/// `{"workspace_id","from","to","sessions_opened","sessions_closed","messages_by_role":{role: n},
///   "first_response_seconds":{"count","median","p90"},"wait_seconds":{"count","median","p90"},"unanswered",
///   "csat":{"answered","mean","distribution","share_answered","by_operator"}}`.
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
        csat(figures, &writer)
        writer.endObject()
        return writer.bytes
    }

    /// `"csat":{"answered","share_answered","mean","distribution":{"1".."5"},"by_operator":{id:{...}}}`:
    /// `share_answered` of the sessions closed in the window (null when none closed), `mean` null when none.
    private static func csat(_ figures: Analytics, _ writer: inout JSONWriter) {
        let csat = figures.csat
        writer.key("csat")
        writer.beginObject()
        ratings(csat.distribution, &writer)
        writer.key("share_answered")
        if figures.sessionsClosed > 0 {
            writer.double(min(1, Double(csat.answered) / Double(figures.sessionsClosed)))
        } else {
            writer.null()
        }
        writer.key("by_operator")
        writer.beginObject()
        for id in csat.byOperator.keys.sorted() where !id.isEmpty {
            writer.key(id)
            writer.beginObject()
            ratings(csat.byOperator[id] ?? [], &writer)
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
    }

    /// `"answered","mean","distribution":{"1":n,...,"5":n}` of one distribution.
    private static func ratings(_ distribution: [Int], _ writer: inout JSONWriter) {
        writer.key("answered")
        writer.int(distribution.reduce(0, +))
        writer.key("mean")
        if let mean = CsatFigures.mean(distribution) { writer.double(mean) } else { writer.null() }
        writer.key("distribution")
        writer.beginObject()
        for (index, count) in distribution.enumerated() {
            writer.key(String(index + 1))
            writer.int(count)
        }
        writer.endObject()
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
