import SwitchboardChat
import SwitchboardHTTP
import SwitchboardMetrics
import SwitchboardReaders

/// `GET /api/v1/sessions/{id}/transcript`: the conversation as a person
/// reads it (`Transcript`), `text/plain`, or `text/html` when the `Accept`
/// header prefers it or `format=html` asks. A visitor may read its own
/// session's, without the private notes, as with the history.
enum TranscriptResource {
    static let routes = [
        APIRoute(
            method: .get, pattern: "/api/v1/sessions/{id}/transcript", label: .transcript, visitors: true,
            respond: show)
    ]

    /// What one transcript holds at most: read in pages, so a long conversation is bounded, not refused.
    static let maxMessages = 10_000
    static let pageSize = 1_000

    static func show(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let sessionID = try request.sessionID()
        let format = try self.format(request.http)
        let identity = request.identity
        return .later { queries in
            respond {
                () throws(QueryError) in
                let session: SessionInfo
                switch try visibleSession(sessionID, to: identity, in: queries) {
                case .refused(let refusal): return refusal
                case .visible(let visible): session = visible
                }
                var messages: [ChatMessage] = []
                var after: Int64 = 0
                while messages.count < maxMessages {
                    let page = try queries.messages(
                        sessionID: sessionID, afterSeq: after, limit: min(pageSize, maxMessages - messages.count),
                        withNotes: identity.role != .visitor)
                    messages += page
                    guard let last = page.last, page.count == pageSize else { break }
                    after = last.seq
                }
                var truncated = false
                if messages.count == maxMessages, let last = messages.last {
                    truncated =
                        !(try queries.messages(
                            sessionID: sessionID, afterSeq: last.seq, limit: 1, withNotes: identity.role != .visitor
                        )
                        .isEmpty)
                }
                let body = Transcript(session: session, messages: messages, truncated: truncated).render(format)
                return answer(body, format)
            }
        }
    }

    private static func answer(_ body: String, _ format: Transcript.Format) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, body: Array(body.utf8))
        switch format {
        case .text:
            response.headers.append(("Content-Type", "text/plain; charset=utf-8"))
        case .html:
            response.headers.append(("Content-Type", "text/html; charset=utf-8"))
            // The page shows text and styles itself; it runs nothing and loads nothing.
            response.headers.append(("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"))
        }
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        response.headers.append(("Cache-Control", "private, no-store"))
        return response
    }

    /// `format=text|html` first; else the `Accept` header: HTML when it names `text/html` and not
    /// `text/plain` before it (a browser's navigation); else text.
    static func format(_ request: HTTPRequest) throws(ChatError) -> Transcript.Format {
        switch APIParameters(request).string("format") {
        case "html": return .html
        case "text": return .text
        case nil: break
        case let other?: throw .badRequest("format must be text or html, not \"\(other.prefix(32))\"")
        }
        let accept = (request.headers.first("Accept") ?? "").lowercased()
        let types = accept.split(separator: ",").map { range in
            String(range.prefix { $0 != ";" }.filter { $0 != " " && $0 != "\t" })
        }
        guard let html = types.firstIndex(of: "text/html") else { return .text }
        if let plain = types.firstIndex(of: "text/plain"), plain < html { return .text }
        return .html
    }
}
