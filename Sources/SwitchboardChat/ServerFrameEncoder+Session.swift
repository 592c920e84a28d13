import SwitchboardJSON

/// Frames that carry session objects: the reply to `session.create`, the inbox page and its updates.
extension ServerFrameEncoder {
    /// `{"type":"session","ref":..,"session":{...}}`
    public mutating func session(ref: String?, _ session: SessionInfo) -> [UInt8] {
        sessionFrame("session", ref: ref, session)
    }

    /// `{"type":"inbox","ref":..,"sessions":[...],"next_cursor":...}`; `next_cursor` is null on the last page.
    public mutating func inbox(ref: String?, sessions: [SessionInfo], nextCursor: String?) -> [UInt8] {
        begin("inbox", ref: ref)
        sessionPage(sessions, nextCursor: nextCursor)
        return end()
    }

    /// `"sessions":[...],"next_cursor":...`: a page of the inbox, on the socket and over HTTP.
    mutating func sessionPage(_ sessions: [SessionInfo], nextCursor: String?) {
        writer.key("sessions")
        writer.beginArray()
        for session in sessions { sessionObject(session) }
        writer.endArray()
        writer.key("next_cursor")
        optionalString(nextCursor)
    }

    /// `{"type":"session.updated","ref":..,"session":{...}}`; the whole session, so a console
    /// can replace its row without merging.
    public mutating func sessionUpdated(ref: String?, _ session: SessionInfo) -> [UInt8] {
        sessionFrame("session.updated", ref: ref, session)
    }

    private mutating func sessionFrame(_ type: String, ref: String?, _ session: SessionInfo) -> [UInt8] {
        begin(type, ref: ref)
        writer.key("session")
        sessionObject(session)
        return end()
    }

    mutating func sessionObject(_ session: SessionInfo) {
        writer.beginObject()
        writer.key("id")
        writer.string(session.id)
        writer.key("workspace_id")
        writer.string(session.workspaceID)
        writer.key("visitor_id")
        optionalString(session.visitorID)
        writer.key("title")
        writer.string(session.title)
        writer.key("status")
        writer.string(session.status.rawValue)
        writer.key("assigned_operator")
        if let assigned = session.assignedOperator {
            writer.beginObject()
            writer.key("id")
            writer.string(assigned.id)
            writer.key("name")
            optionalString(assigned.name)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("last_seq")
        writer.int(session.lastSeq)
        writer.key("last_message")
        if let last = session.lastMessage {
            writer.beginObject()
            writer.key("seq")
            writer.int(last.seq)
            writer.key("body")
            writer.string(last.body)
            writer.key("sender_role")
            writer.string(last.senderRole)
            writer.key("created_at")
            writer.string(last.createdAt)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("created_at")
        writer.string(session.createdAt)
        writer.key("updated_at")
        writer.string(session.updatedAt)
        writer.key("version")
        writer.int(session.version)
        writer.key("queued")
        writer.bool(session.queued)
        writer.key("waiting_since")
        optionalString(session.waitingSince)
        if let csat = session.csat {
            writer.key("csat")
            writer.trustedJSON(csat)
        }
        if session.csatSurvey {
            writer.key("csat_survey")
            writer.bool(true)
        }
        if let readSeq = session.readSeq {
            writer.key("read_seq")
            writer.int(readSeq)
        }
        if let context = session.context {
            writer.key("context")
            writer.trustedJSON(context)
        }
        if let contact = session.contact {
            writer.key("contact")
            writer.trustedJSON(contact)
        }
        if session.deleted {
            writer.key("deleted")
            writer.bool(true)
        }
        writer.endObject()
    }
}
