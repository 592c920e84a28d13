import SwitchboardJSON

/// Bodies of the HTTP API (docs/protocol.md "HTTP API"): the same session and
/// message objects as the socket's frames, so consoles parse one shape.
extension ServerFrameEncoder {
    /// `{"sessions":[...],"next_cursor":...}`
    public mutating func sessionsPage(_ sessions: [SessionInfo], nextCursor: String?) -> [UInt8] {
        writer.reset()
        writer.beginObject()
        sessionPage(sessions, nextCursor: nextCursor)
        return end()
    }

    /// `{"session":{...}}`
    public mutating func sessionBody(_ session: SessionInfo) -> [UInt8] {
        writer.reset()
        writer.beginObject()
        writer.key("session")
        sessionObject(session)
        return end()
    }

    /// `{"session_id":..,"messages":[{...}],"next_after_seq":...}`; `next_after_seq` is null when
    /// this page reached the newest message.
    public mutating func messagesPage(sessionID: String, _ messages: [ChatMessage], nextAfterSeq: Int64?) -> [UInt8] {
        writer.reset()
        writer.beginObject()
        writer.key("session_id")
        writer.string(sessionID)
        writer.key("messages")
        writer.beginArray()
        var expires: Int64?
        for message in messages {
            writer.beginObject()
            messageFields(message, expires: &expires)
            writer.endObject()
        }
        writer.endArray()
        writer.key("next_after_seq")
        if let nextAfterSeq { writer.int(nextAfterSeq) } else { writer.null() }
        return end()
    }

    /// `{"error":{"code":..,"message":..}}`
    public mutating func apiError(_ error: ChatError) -> [UInt8] {
        writer.reset()
        writer.beginObject()
        writer.key("error")
        writer.beginObject()
        writer.key("code")
        writer.string(error.code.rawValue)
        writer.key("message")
        writer.string(error.message)
        writer.endObject()
        return end()
    }
}
