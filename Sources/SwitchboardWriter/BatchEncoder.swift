/// Builds the eight array parameters of `switchboard_append_messages` as
/// PostgreSQL array literals in text format: `{"a","b\"c",NULL}`.
///
/// Every element is double-quoted (so empty strings, spaces, commas and braces
/// need no special cases) with `\` and `"` backslash-escaped; NULL is written
/// bare, for a missing sender name and a message without attachments. This is
/// the writer's hot path: one pass per array into byte buffers kept between
/// batches, copying whole strings when they need no escaping (the usual case).
/// The eighth array, each message's attachment ids joined by commas, is sent
/// only for a batch that has some: otherwise the parameter is NULL, which the
/// function reads as no attachments anywhere (nothing built, nothing sent).
struct BatchEncoder {
    private var buffers: [[UInt8]] = Array(repeating: [], count: 8)

    /// The statement the parameters are for. The casts turn the text literals
    /// into arrays server-side. The function returns the sender columns, kind
    /// and body only for duplicates (a stored row's equal the input's), and
    /// the session's state after the batch only on its last stored row;
    /// after the commands' rows, the events it stored (migration 8); and
    /// the session's wait for an operator and its contact (migration 9); the
    /// message's attachments (migration 12); last, a `webhooks` row counting
    /// the webhook events the batch wrote, when it wrote any (migration 13).
    static let statement = """
        SELECT ord, status, id, seq, \(utc("created_at")),
               sender_role, sender_id, sender_name, kind, body,
               session_version, session_workspace, session_status, session_title, session_visitor, session_operator_id,
               session_operator_name, \(utc("session_created_at")), \(utc("session_updated_at")),
               event_session, meta, \(utc("session_waiting_since")), session_contact, attachments
          FROM switchboard_append_messages($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
                                           $6::text[], $7::text[], $8::text[])
        """

    /// RFC 3339 in UTC with milliseconds, as the readers spell time.
    private static func utc(_ column: String) -> String {
        #"to_char(\#(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    }

    mutating func encode(_ commands: ArraySlice<QueuedCommand>) -> [String?] {
        var bodyBytes = 0
        var withAttachments = 0
        for queued in commands {
            bodyBytes += queued.command.body.utf8.count
            if !queued.command.attachmentIDs.isEmpty { withAttachments += 1 }
        }
        // Quotes and commas: three bytes per element, plus braces.
        let perElement = commands.count * 3 + 2
        let estimates = [
            commands.count * 36 + perElement, commands.count * 36 + perElement, commands.count * 8 + perElement,
            commands.count * 16 + perElement, commands.count * 16 + perElement, commands.count * 4 + perElement,
            bodyBytes + bodyBytes / 16 + perElement,
        ]
        for index in 0..<7 {
            buffers[index].removeAll(keepingCapacity: true)
            buffers[index].reserveCapacity(estimates[index])
            buffers[index].append(UInt8(ascii: "{"))
        }
        var first = true
        for queued in commands {
            let command = queued.command
            if !first {
                for index in 0..<7 { buffers[index].append(UInt8(ascii: ",")) }
            }
            first = false
            Self.appendQuoted(command.sessionID, to: &buffers[0])
            Self.appendQuoted(command.clientMessageID, to: &buffers[1])
            Self.appendQuoted(command.senderRole, to: &buffers[2])
            Self.appendQuoted(command.senderID, to: &buffers[3])
            if let name = command.senderName {
                Self.appendQuoted(name, to: &buffers[4])
            } else {
                buffers[4].append(contentsOf: [
                    UInt8(ascii: "N"), UInt8(ascii: "U"), UInt8(ascii: "L"), UInt8(ascii: "L"),
                ])
            }
            Self.appendQuoted(command.kind, to: &buffers[5])
            Self.appendQuoted(command.body, to: &buffers[6])
        }
        var parameters: [String?] = (0..<7).map { index in
            buffers[index].append(UInt8(ascii: "}"))
            return String(decoding: buffers[index], as: UTF8.self)
        }
        parameters.append(withAttachments == 0 ? nil : attachmentIDs(commands, withAttachments: withAttachments))
        return parameters
    }

    /// `{NULL,"id,id",...}`: each command's attachment ids, NULL for none.
    private mutating func attachmentIDs(_ commands: ArraySlice<QueuedCommand>, withAttachments: Int) -> String {
        buffers[7].removeAll(keepingCapacity: true)
        buffers[7].reserveCapacity(commands.count * 5 + withAttachments * 10 * 37 + 2)
        buffers[7].append(UInt8(ascii: "{"))
        for (index, queued) in commands.enumerated() {
            if index > 0 { buffers[7].append(UInt8(ascii: ",")) }
            let ids = queued.command.attachmentIDs
            if ids.isEmpty {
                buffers[7].append(contentsOf: [
                    UInt8(ascii: "N"), UInt8(ascii: "U"), UInt8(ascii: "L"), UInt8(ascii: "L"),
                ])
            } else {
                // UUID text: no quote, backslash or comma to escape.
                Self.appendQuoted(ids.joined(separator: ","), to: &buffers[7])
            }
        }
        buffers[7].append(UInt8(ascii: "}"))
        return String(decoding: buffers[7], as: UTF8.self)
    }

    /// Appends `"text"` with `\` and `"` escaped (array literal syntax).
    static func appendQuoted(_ text: String, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    buffer.append(UInt8(ascii: "\\"))
                    start = index
                }
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count]))
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
