import SwitchboardJSON
import SwitchboardReaders

/// The body of `GET /api/v1/search`:
/// `{"results":[{"message":{...},"session":{...},"snippet":[...]}],"next_cursor":...}`.
/// The snippet is a list of runs, `{"text":"...","match":true|false}`, so a
/// client shows the highlight by building elements, never by parsing markup
/// out of what a visitor wrote.
enum SearchJSON {
    static func page(_ page: SearchPage) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for hit in page.hits { self.hit(hit, &writer) }
        writer.endArray()
        writer.key("next_cursor")
        if let cursor = page.nextCursor { writer.string(cursor) } else { writer.null() }
        writer.endObject()
        return writer.bytes
    }

    private static func hit(_ hit: SearchHit, _ writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("message")
        writer.beginObject()
        writer.key("id")
        writer.string(hit.id)
        writer.key("session_id")
        writer.string(hit.sessionID)
        writer.key("seq")
        writer.int(hit.seq)
        writer.key("kind")
        writer.string(hit.kind)
        writer.key("sender")
        writer.beginObject()
        writer.key("id")
        writer.string(hit.sender.id)
        writer.key("role")
        writer.string(hit.sender.role)
        // As every Participant the API writes: the name always there, null when unknown.
        writer.key("name")
        if let name = hit.sender.name { writer.string(name) } else { writer.null() }
        writer.endObject()
        writer.key("created_at")
        writer.string(hit.createdAt)
        writer.endObject()
        writer.key("session")
        writer.beginObject()
        writer.key("id")
        writer.string(hit.sessionID)
        writer.key("title")
        writer.string(hit.sessionTitle)
        writer.key("status")
        writer.string(hit.sessionStatus)
        writer.key("visitor_id")
        writer.string(hit.visitorID)
        writer.endObject()
        writer.key("snippet")
        writer.beginArray()
        for part in hit.snippet {
            writer.beginObject()
            writer.key("text")
            writer.string(part.text)
            writer.key("match")
            writer.bool(part.matched)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
