import SwitchboardPostgres

/// The end-of-run check that nothing acked was lost: every seq the gateway
/// acked must be in PostgreSQL, holding the message it was acked for.
enum DatabaseCheck {
    struct Result {
        var verified = 0
        var lost = 0
        var examples: [String] = []
    }

    static func verify(databaseURL: String, sessions: [SessionState]) throws(PostgresError) -> Result {
        let connection = try PostgresConnection(databaseURL)
        var result = Result()
        for session in sessions where !session.id.isEmpty && session.maxAckedSeq > 0 {
            let rows = try connection.query(
                "SELECT seq, client_msg_id FROM chats WHERE session_id = $1::uuid AND seq IS NOT NULL", [session.id])
            var stored = [UInt64](repeating: 0, count: session.ledger.count)
            for row in 0..<rows.rowCount {
                guard let seq = rows.int(row, 0), seq >= 1, seq <= stored.count, let text = rows.string(row, 1) else {
                    continue
                }
                stored[seq - 1] = ClientFrames.parseMessageID(Array(text.utf8)) ?? .max
            }
            for (slot, acked) in session.ledger.enumerated() where acked != 0 {
                if stored[slot] == acked {
                    result.verified += 1
                } else {
                    result.lost += 1
                    if result.examples.count < 5 { result.examples.append("session \(session.id) seq \(slot + 1)") }
                }
            }
        }
        return result
    }
}
