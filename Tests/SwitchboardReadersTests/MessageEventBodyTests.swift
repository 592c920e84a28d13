import Foundation
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardWebhooks
import Testing

/// `MessageEventBody` (the body the gateway builds for what the expander
/// hands over) against `switchboard_webhook_event_body` (the body a claim,
/// a retry and the recovery send), over messages with generated text: the
/// same bytes, or a retry would send a body its first attempt did not.
@Suite struct MessageEventBodyTests {
    /// Text that stresses `to_json`'s escaping: quotes, backslashes, every
    /// control character, DEL, slashes, and multi-byte UTF-8.
    private static let pieces: [String] =
        ["\"", "\\", "/", "\u{7F}", "é", "😀", "中文", " ", "a", "Z", "0", "<", "&", "'", "\u{2028}", "{}", "null"]
        + (1..<0x20).map { String(UnicodeScalar(UInt8($0))) }

    private struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
    }

    private static func text(_ random: inout Generator, upTo length: Int) -> String {
        (0..<Int.random(in: 0...length, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    @Test func theGatewaysBodyIsTheDatabasesByteForByte() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.query("INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'w')", [fixture.workspaceID])
        let session = try fixture.admin.query(
            "INSERT INTO chat_sessions (workspace_id, user_id) VALUES ($1::uuid, 'v-1') RETURNING id::text",
            [fixture.workspaceID]
        ).string(0, 0)!
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = Generator(state: seed)
        for seq in 1...300 {
            let optional = { (random: inout Generator) -> String? in
                Bool.random(using: &random) ? nil : Self.text(&random, upTo: 12)
            }
            let senderID = optional(&random)
            let userID = Bool.random(using: &random) ? UUID().uuidString.lowercased() : nil
            let name = optional(&random)
            let attachmentName = optional(&random)
            let version = Bool.random(using: &random) ? nil : String(Int.random(in: 1...1_000_000, using: &random))
            let micros = Int64.random(in: 0...4_000_000_000_000_000, using: &random)
            let row = try fixture.admin.query(
                """
                INSERT INTO chats (workspace_id, user_id, role, content, created_at, session_id, seq, client_msg_id,
                                   sender_id, sender_name, kind, attachments)
                VALUES ($1::uuid, $2::uuid, $3, $4, '2000-01-01Z'::timestamptz + $5::bigint * interval '1 microsecond',
                        $6::uuid, $7::bigint, $8, $9, $10, $11,
                        CASE WHEN $12::text IS NULL THEN NULL
                             ELSE jsonb_build_array(jsonb_build_object('id', 'att_1', 'name', $12::text, 'size', $7::bigint,
                                                                       'ratio', 1.25, 'image', true)) END)
                RETURNING id::text
                """,
                [
                    fixture.workspaceID, userID, Self.text(&random, upTo: 8), Self.text(&random, upTo: 80),
                    String(micros), session, String(seq), "\(seq)" + Self.text(&random, upTo: 10), senderID, name,
                    ["text", "note", "image", Self.text(&random, upTo: 5)].randomElement(using: &random)!,
                    attachmentName,
                ])
            let messageID = row.string(0, 0)!
            let eventID = "evt_" + Self.text(&random, upTo: 6)
            let type = Bool.random(using: &random) ? "message.created" : "note.created"
            let columns = try fixture.admin.query(
                """
                SELECT m.session_id, m.seq, m.client_msg_id, m.kind, m.content, coalesce(m.sender_id, m.user_id::text),
                       m.role, m.sender_name, switchboard_webhook_time(m.created_at), m.attachments::text,
                       switchboard_webhook_event_body($2, $3, $4::uuid, NULL, m.id, $5)
                  FROM chats m WHERE m.id = $1::uuid
                """, [messageID, eventID, type, fixture.workspaceID, version])
            let fields: [(MessageEventBody.Field, String?)] = [
                (.eventID, eventID), (.type, type), (.workspaceID, fixture.workspaceID),
                (.sessionID, columns.string(0, 0)), (.seq, columns.string(0, 1)), (.messageID, messageID),
                (.clientMessageID, columns.string(0, 2)), (.kind, columns.string(0, 3)), (.body, columns.string(0, 4)),
                (.senderID, columns.string(0, 5)), (.senderRole, columns.string(0, 6)),
                (.senderName, columns.string(0, 7)), (.time, columns.string(0, 8)),
                (.attachments, columns.string(0, 9)), (.sessionVersion, version),
            ]
            let built = MessageEventBody.text(
                of: MessageEventStrings(
                    Dictionary(uniqueKeysWithValues: fields.compactMap { f in f.1.map { (f.0, $0) } })))
            let expected = try #require(columns.string(0, 10))
            #expect(built == expected, "seed \(seed), seq \(seq)")
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(built.utf8))) != nil, "valid JSON: seed \(seed)")
            if built != expected { return }
        }
    }

    /// An event that stored its body (a session's change, a test) sends it as stored.
    @Test func anEventsStoredBodyIsSentAsStored() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let body = try fixture.admin.query(
            "SELECT switchboard_webhook_event_body('evt_x', 'session.created', $1::uuid, '{\"a\": 1}', NULL, NULL)",
            [fixture.workspaceID])
        #expect(body.string(0, 0) == "{\"a\": 1}")
    }
}
