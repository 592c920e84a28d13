import SwitchboardAttachments
import SwitchboardChat

/// A conversation as a person reads it (`GET /api/v1/sessions/{id}/transcript`):
/// a heading, then one line per message with its time (UTC), who wrote it and
/// what, private notes marked, attachments listed by name and size, and the
/// system lines (assigned, closed, ...) as they were stored. Plain text, or a
/// standalone HTML page whose every text is escaped. Which messages go in
/// (a visitor's transcript has no notes) is the caller's choice.
struct Transcript {
    enum Format {
        case text
        case html
    }

    let session: SessionInfo
    let messages: [ChatMessage]
    /// More messages than a transcript holds: it says where it stops.
    let truncated: Bool

    func render(_ format: Format) -> String {
        switch format {
        case .text: return text()
        case .html: return html()
        }
    }

    private func text() -> String {
        var out = "\(session.title)\n"
        out += "Conversation \(session.id), opened \(Self.time(session.createdAt)), \(session.status.rawValue)\n\n"
        for message in messages {
            if message.kind == ChatMessage.eventKind {
                out += "[\(Self.time(message.createdAt))] — \(Self.oneLine(message.body))\n"
                continue
            }
            let note = message.isNote ? " [private note]" : ""
            out +=
                "[\(Self.time(message.createdAt))] \(Self.who(message.sender))\(note): \(Self.indented(message.body))\n"
            for attachment in message.attachments {
                out += "    Attachment: \(Self.oneLine(attachment.filename)) (\(Self.size(attachment.size)))\n"
            }
        }
        if truncated {
            out += "\n(The transcript stops here: the conversation has more than \(messages.count) messages.)\n"
        }
        return out
    }

    private func html() -> String {
        let e = Self.escaped
        var out = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(e(session.title))</title>
            <style>body{font:15px/1.45 system-ui,sans-serif;max-width:760px;margin:24px auto;padding:0 16px;color:#18202c}\
            ol{list-style:none;padding:0}li{margin:10px 0}time,.who{color:#5b6578;font-size:13px}\
            .body{white-space:pre-wrap;overflow-wrap:anywhere}.note{background:#fff4cc;box-shadow:inset 3px 0 #d4a000;\
            padding:4px 10px}.event{color:#5b6578;font-style:italic}</style></head>
            <body><h1>\(e(session.title))</h1>
            <p>Conversation <code>\(e(session.id))</code>, opened \(e(Self.time(session.createdAt))), \
            \(e(session.status.rawValue))</p>
            <ol>

            """
        for message in messages {
            let time = "<time datetime=\"\(e(message.createdAt))\">\(e(Self.time(message.createdAt)))</time>"
            if message.kind == ChatMessage.eventKind {
                out += "<li class=\"event\">\(time) \(e(message.body))</li>\n"
                continue
            }
            let note = message.isNote ? " · Private note" : ""
            out += "<li\(message.isNote ? " class=\"note\"" : "")>\(time) <span class=\"who\">"
            out += "\(e(Self.who(message.sender)))\(note)</span><div class=\"body\">\(e(message.body))</div>"
            if !message.attachments.isEmpty {
                out += "<ul>"
                for attachment in message.attachments {
                    out += "<li>Attachment: \(e(attachment.filename)) (\(Self.size(attachment.size)))</li>"
                }
                out += "</ul>"
            }
            out += "</li>\n"
        }
        out += "</ol>\n"
        if truncated {
            out += "<p>The transcript stops here: the conversation has more than \(messages.count) messages.</p>\n"
        }
        return out + "</body></html>\n"
    }

    /// `Ken (operator)`; a sender without a name by its id.
    static func who(_ sender: Participant) -> String {
        "\(oneLine(sender.name ?? sender.id)) (\(sender.role))"
    }

    /// `2026-11-22T08:00:01.234Z` as `2026-11-22 08:00 UTC`; anything else as it is.
    static func time(_ rfc3339: String) -> String {
        let bytes = Array(rfc3339.utf8)
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "T") else { return rfc3339 }
        return String(decoding: bytes[0..<10], as: UTF8.self) + " " + String(decoding: bytes[11..<16], as: UTF8.self)
            + " UTC"
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        if bytes < 1024 * 1024 { return "\((bytes + 512) / 1024) KB" }
        let tenths = (bytes * 10 + 512 * 1024) / (1024 * 1024)
        return "\(tenths / 10).\(tenths % 10) MB"
    }

    /// A message's later lines indented under its first, so each line of the file starts a message or continues one.
    static func indented(_ body: String) -> String {
        body.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n    ")
    }

    static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
