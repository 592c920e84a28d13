import SwitchboardIdentifiers
import SwitchboardPostgres

/// Builds the eight array parameters of `switchboard_append_messages` in
/// PostgreSQL's binary format (`PostgresBinaryParameters`): the session ids
/// as `uuid[]`, the rest as `text[]`. NULL is a missing sender name and a
/// message without attachments. This is the writer's hot path: one pass over
/// the commands into a byte buffer kept between batches, each string copied
/// once as it is, with its length ahead of it (nothing to escape, nothing
/// for the server to parse: docs/writer.md, "Binary parameters").
/// The eighth array, each message's attachment ids joined by commas, is sent
/// only for a batch that has some: otherwise the parameter is NULL, which the
/// function reads as no attachments anywhere (nothing built, nothing sent).
struct BatchEncoder {
    private(set) var parameters = PostgresBinaryParameters()

    /// The statement the parameters are for. The casts give each parameter
    /// its type (text literals, as tests send, work as well). The function
    /// returns the sender columns, kind and body only for duplicates (a
    /// stored row's equal the input's), and the session's state after the
    /// batch only on its last stored row; after the commands' rows, the
    /// events it stored (migration 8); and the session's wait for an
    /// operator and its contact (migration 9); the message's attachments
    /// (migration 12); last, a `webhooks` row counting the webhook events the
    /// batch wrote, when it wrote any (migration 13).
    ///
    /// Every row the batch stores, and the sessions it bumps, carry the
    /// transaction's time (`now()`). It is formatted once, on the first row
    /// (column 24, `batch_time`: an uncorrelated subquery runs once per
    /// execution), and a timestamp equal to it comes as NULL; `to_char` for
    /// each of them was about 1-2% of the database's time per batch
    /// (docs/writer.md, "The batch's time, formatted once").
    static let statement = """
        SELECT ord, status, id, seq, \(unlessNow("created_at")),
               sender_role, sender_id, sender_name, kind, body,
               session_version, session_workspace, session_status, session_title, session_visitor, session_operator_id,
               session_operator_name, \(unlessNow("session_created_at")), \(unlessNow("session_updated_at")),
               event_session, meta, \(utc("session_waiting_since")), session_contact, attachments,
               CASE WHEN ord = 1 THEN (SELECT \(utc("now()"))) END AS batch_time
          FROM switchboard_append_messages($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[],
                                           $6::text[], $7::text[], $8::text[])
        """

    /// RFC 3339 in UTC with milliseconds, as the readers spell time.
    private static func utc(_ column: String) -> String {
        #"to_char(\#(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#
    }

    /// `utc(column)`, or NULL when it is the transaction's time (`batch_time`).
    /// Only for columns that are never NULL where they are read: a NULL of
    /// their own would read as the batch's time.
    private static func unlessNow(_ column: String) -> String {
        "CASE WHEN \(column) = now() THEN NULL ELSE \(utc(column)) END"
    }

    /// Fills `parameters` for these commands, which the writer then sends.
    mutating func encode(_ commands: ArraySlice<QueuedCommand>) {
        var textBytes = 0
        var withAttachments = 0
        for queued in commands {
            let command = queued.command
            textBytes += command.clientMessageID.utf8.count + command.senderRole.utf8.count
            textBytes += command.senderID.utf8.count + (command.senderName?.utf8.count ?? 0)
            textBytes += command.kind.utf8.count + command.body.utf8.count
            if !command.attachmentIDs.isEmpty { withAttachments += 1 }
        }
        // Array headers, and a length word before each element (a uuid's 16 bytes besides).
        parameters.removeAll(reservingCapacity: 8 * 20 + commands.count * (7 * 4 + 16) + textBytes)
        parameters.startArray(of: .uuid, count: commands.count)
        for queued in commands {
            // Submit checks with the same parse (`WriteCommand.isUUIDText`), so
            // the nil UUID never goes; if it did, it names no session, and the
            // command would be answered `no_session`, not stored elsewhere.
            let session = UUIDText.value(queued.command.sessionID) ?? (0, 0)
            parameters.appendUUIDElement(high: session.high, low: session.low)
        }
        parameters.endArray()
        appendTextArray(commands) { $0.clientMessageID }
        appendTextArray(commands) { $0.senderRole }
        appendTextArray(commands) { $0.senderID }
        appendTextArray(commands) { $0.senderName }
        appendTextArray(commands) { $0.kind }
        appendTextArray(commands) { $0.body }
        guard withAttachments > 0 else {
            parameters.appendNull()
            return
        }
        appendTextArray(commands) { command in
            // UUID text: no comma inside one, so the function splits them back.
            command.attachmentIDs.isEmpty ? nil : command.attachmentIDs.joined(separator: ",")
        }
    }

    private mutating func appendTextArray(
        _ commands: ArraySlice<QueuedCommand>, _ element: (WriteCommand) -> String?
    ) {
        parameters.startArray(of: .text, count: commands.count)
        for queued in commands {
            if let text = element(queued.command) {
                parameters.appendElement(text)
            } else {
                parameters.appendNullElement()
            }
        }
        parameters.endArray()
    }
}
