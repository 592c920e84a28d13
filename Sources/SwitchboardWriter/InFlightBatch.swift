import SwitchboardPostgres

/// One batch on the wire: its commands, when it was sent, and what the server
/// has answered so far. The answer counts only once the batch's sync arrives.
struct InFlightBatch {
    let commands: [QueuedCommand]
    let sentAt: UInt64
    /// The home lanes other than its own whose sessions a batch on lane 0
    /// holds: they wait for its commit before their lane sends them (`LanePlan`).
    var heldHomes: LaneSet = []
    var result: PostgresResult?
    var error: PostgresError?

    /// Every command answered with the same outcome (failure paths).
    static func results(_ commands: some Sequence<QueuedCommand>, _ outcome: WriteOutcome) -> [WriteResult] {
        commands.map { $0.result(outcome) }
    }

    struct Decoded {
        var results: [WriteResult]
        var events: [StoredMessage] = []
        var stored = 0
        var duplicates = 0
        var noSession = 0
        var badAttachments = 0
        /// Messages the batch handed to the webhook backlog (the `webhooks` row, migration 21).
        var webhookBacklog = 0
    }

    /// Turns the function's rows (one per command, in command order, then
    /// the events it stored) into results. A stored row equals its command
    /// apart from id, seq and created_at, so only those are read back; a
    /// duplicate's original row may differ and is read in full.
    static func decode(_ result: PostgresResult, commands: [QueuedCommand]) -> Decoded {
        guard result.rowCount >= commands.count else {
            let message = "the writer's statement returned \(result.rowCount) rows for \(commands.count) messages"
            return Decoded(results: results(commands, .failed(message)))
        }
        var decoded = Decoded(results: [])
        decoded.results.reserveCapacity(commands.count)
        // The transaction's time, formatted once on the first row; the
        // timestamps equal to it come as NULL (`BatchEncoder.statement`).
        let time = Timestamps(batch: result.rowCount > 0 ? result.string(0, 24) : nil)
        for (row, queued) in commands.enumerated() {
            let command = queued.command
            let outcome: WriteOutcome
            // Columns: ord, status, id, seq, created_at, then role, sender id,
            // sender name, kind, body (duplicates only), then the session's
            // state (a session's last stored row only, see `session(_:_:_:)`),
            // then an event's session and meta, the session's wait and
            // contact, and the message's attachments (JSON text), and the
            // batch's time on the first row. For `bad_attachment`, `id` is
            // the attachment refused.
            if result.int(row, 0) != row + 1 {
                outcome = .failed("the writer's statement returned rows out of order")
            } else {
                switch result.string(row, 1) {
                case "stored":
                    decoded.stored += 1
                    outcome = .stored(
                        StoredMessage(
                            id: result.string(row, 2) ?? "", sessionID: command.sessionID,
                            seq: Int64(result.string(row, 3) ?? "") ?? 0, createdAt: time.read(result, row, 4),
                            clientMessageID: command.clientMessageID, senderRole: command.senderRole,
                            senderID: command.senderID, senderName: command.senderName, kind: command.kind,
                            body: command.body, session: session(result, row, time), attachments: result.string(row, 23)
                        ))
                case "duplicate":
                    decoded.duplicates += 1
                    outcome = .duplicate(
                        StoredMessage(
                            id: result.string(row, 2) ?? "", sessionID: command.sessionID,
                            seq: Int64(result.string(row, 3) ?? "") ?? 0, createdAt: time.read(result, row, 4),
                            clientMessageID: command.clientMessageID, senderRole: result.string(row, 5) ?? "",
                            senderID: result.string(row, 6) ?? "", senderName: result.string(row, 7),
                            kind: result.string(row, 8) ?? "", body: result.string(row, 9) ?? "",
                            attachments: result.string(row, 23)))
                case "no_session":
                    decoded.noSession += 1
                    outcome = .noSession
                case "bad_attachment":
                    decoded.badAttachments += 1
                    outcome = .badAttachment(result.string(row, 2) ?? "")
                default:
                    outcome = .failed("unknown status \(result.string(row, 1) ?? "NULL") from the writer's statement")
                }
            }
            decoded.results.append(queued.result(outcome))
        }
        for row in commands.count..<result.rowCount {
            // The last row may count the webhook events the batch wrote, in `seq`.
            if row == result.rowCount - 1, result.string(row, 1) == "webhooks",
                let count = result.string(row, 3).flatMap({ Int($0) })
            {
                decoded.webhookBacklog = count
                continue
            }
            guard result.string(row, 1) == "event", let event = event(result, row, time) else {
                // As strict as the commands' rows: a row the function should not return is a broken schema.
                let message = "the writer's statement returned an unexpected row after the messages' rows"
                return Decoded(results: results(commands, .failed(message)))
            }
            decoded.events.append(event)
        }
        return decoded
    }

    /// An event row: read in full, its session and meta in the last two columns.
    private static func event(_ result: PostgresResult, _ row: Int, _ time: Timestamps) -> StoredMessage? {
        guard let sessionID = result.string(row, 19), let seq = result.string(row, 3).flatMap({ Int64($0) }) else {
            return nil
        }
        return StoredMessage(
            id: result.string(row, 2) ?? "", sessionID: sessionID, seq: seq, createdAt: time.read(result, row, 4),
            clientMessageID: "event:" + (result.string(row, 2) ?? ""), senderRole: result.string(row, 5) ?? "",
            senderID: result.string(row, 6) ?? "",
            senderName: result.string(row, 7), kind: result.string(row, 8) ?? "", body: result.string(row, 9) ?? "",
            meta: result.string(row, 20))
    }

    /// The session state columns of `row`, when the row carries them.
    private static func session(_ result: PostgresResult, _ row: Int, _ time: Timestamps) -> StoredSession? {
        guard let version = result.string(row, 10).flatMap({ Int64($0) }) else { return nil }
        return StoredSession(
            version: version, workspaceID: result.string(row, 11) ?? "", status: result.string(row, 12) ?? "",
            title: result.string(row, 13) ?? "", visitorID: result.string(row, 14), operatorID: result.string(row, 15),
            operatorName: result.string(row, 16), createdAt: time.read(result, row, 17),
            updatedAt: time.read(result, row, 18), waitingSince: result.string(row, 21),
            contact: result.string(row, 22))
    }
}

/// Reads the batch statement's timestamps: a NULL one is the transaction's
/// time, sent once as `batch_time` (one String shared by every such row).
struct Timestamps {
    let batch: String?

    func read(_ result: PostgresResult, _ row: Int, _ column: Int) -> String {
        result.string(row, column) ?? batch ?? ""
    }
}
