/// The body of a message's event (`message.created`, `note.created`), built
/// by the gateway from the message's columns as the expander's pass returns
/// them (migration 41): the same bytes as `switchboard_webhook_event_body`
/// builds in the database for a claim, so that every attempt of a delivery
/// sends what its first did and its signature covers the same text.
///
/// The database's spelling is kept exactly: keys in the protocol's order,
/// no spaces, strings escaped as PostgreSQL's `to_json` escapes them (`"`,
/// `\`, `\b \f \n \r \t`, other control characters as `\u00xx` in lowercase
/// hex, everything else as is), numbers, ids and times as the database's text
/// gives them, and the attachments as their `jsonb` text (absent when the
/// message has none). `MessageEventBodyTests` compares it with the SQL over
/// generated messages.
///
/// `text(of:)` reads each column's bytes where the source holds them (the
/// pass's result, in place): no string is made per column on the expander's
/// path, where a string per column was most of its thread's time.
public enum MessageEventBody {
    /// What a message's event is built from, in the database's text.
    public enum Field: Sendable, CaseIterable {
        case eventID, type, workspaceID
        case sessionID
        /// The message's `seq`.
        case seq
        case messageID, clientMessageID, kind, body
        /// `sender_id`, else the visitor's `user_id`; NULL for neither.
        case senderID
        case senderRole
        /// NULL for none.
        case senderName
        /// The message's time as `switchboard_webhook_time` spells it: the envelope's and the message's.
        case time
        /// The attachments' `jsonb` text, NULL for none.
        case attachments
        /// The session's version at the batch, as the backlog holds it; NULL for none.
        case sessionVersion

        /// Whether the field may be NULL (the others never are in a message's row).
        public var nullable: Bool {
            switch self {
            case .senderID, .senderName, .attachments, .sessionVersion: true
            default: false
            }
        }
    }

    /// The body's JSON text from `columns`.
    public static func text(of columns: some MessageEventColumns) -> String {
        var out = BodyBytes(capacity: 320 + columns.width(of: .body) + columns.width(of: .attachments))
        out.raw(#"{"id":"#)
        out.quoted(columns, .eventID)
        out.raw(#","type":"#)
        out.quoted(columns, .type)
        out.raw(#","created_at":""#)
        out.raw(columns, .time)
        out.raw(#"","workspace_id":""#)
        out.raw(columns, .workspaceID)
        out.raw(#"","data":{"message":{"session_id":""#)
        out.raw(columns, .sessionID)
        out.raw(#"","seq":"#)
        out.raw(columns, .seq)
        out.raw(#","id":""#)
        out.raw(columns, .messageID)
        out.raw(#"","client_msg_id":"#)
        out.quoted(columns, .clientMessageID)
        out.raw(#","kind":"#)
        out.quoted(columns, .kind)
        out.raw(#","body":"#)
        out.quoted(columns, .body)
        out.raw(#","sender":{"id":"#)
        out.quoted(columns, .senderID)
        out.raw(#","role":"#)
        out.quoted(columns, .senderRole)
        out.raw(#","name":"#)
        out.quoted(columns, .senderName, null: "null")
        out.raw(#"},"created_at":""#)
        out.raw(columns, .time)
        out.raw(#"""#)
        out.raw(columns, .attachments, prefix: #","attachments":"#)
        out.raw(#"},"session":{"id":""#)
        out.raw(columns, .sessionID)
        out.raw(#"","version":"#)
        out.raw(columns, .sessionVersion, null: "null")
        out.raw("}}}")
        return String(decoding: out.bytes, as: UTF8.self)
    }
}

/// A source of a message event's columns: the pass's result row, or plain
/// strings (`MessageEventStrings`).
public protocol MessageEventColumns {
    /// Calls `body` with the field's UTF-8 bytes, valid during the call; nil for NULL. Not
    /// generic: called per column, where a generic call across modules looks metadata up.
    func visitField(_ field: MessageEventBody.Field, _ body: (UnsafeRawBufferPointer?) -> Void)
}

extension MessageEventColumns {
    fileprivate func width(of field: MessageEventBody.Field) -> Int {
        var width = 0
        visitField(field) { width = $0?.count ?? 0 }
        return width
    }
}

/// A message event's columns as strings: for tests and callers that hold them so.
public struct MessageEventStrings: MessageEventColumns, Sendable, Equatable {
    public var values: [MessageEventBody.Field: String]

    public init(_ values: [MessageEventBody.Field: String]) {
        self.values = values
    }

    public func visitField(_ field: MessageEventBody.Field, _ body: (UnsafeRawBufferPointer?) -> Void) {
        guard var value = values[field] else { return body(nil) }
        value.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}

/// The body's bytes as they are written.
private struct BodyBytes {
    var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// The field as it is (nothing for NULL), or `null`; `prefix` before it when it is not NULL.
    mutating func raw(
        _ columns: some MessageEventColumns, _ field: MessageEventBody.Field, null: StaticString = "",
        prefix: StaticString = ""
    ) {
        columns.visitField(field) { value in
            guard let value else { return raw(null) }
            raw(prefix)
            bytes.append(contentsOf: value)
        }
    }

    /// The field as PostgreSQL's `to_json(text)` writes it (NULL as `""`, or `null`): the runs
    /// between bytes to escape copied whole.
    mutating func quoted(
        _ columns: some MessageEventColumns, _ field: MessageEventBody.Field, null: StaticString = #""""#
    ) {
        columns.visitField(field) { value in
            guard let value else { return raw(null) }
            bytes.append(UInt8(ascii: "\""))
            var run = 0
            for index in value.indices {
                let byte = value[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: value[run..<index])
                escape(byte)
                run = index + 1
            }
            bytes.append(contentsOf: value[run...])
            bytes.append(UInt8(ascii: "\""))
        }
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            raw("u00")
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0xF)])
            }
        default: bytes.append(byte)
        }
    }
}
