import SwitchboardJSON

/// The webhooks of a chaos run: an endpoint for `message.created` in the
/// run's workspace, pointing at a `loadtest webhook-receiver` that is killed
/// (SIGKILL) and started again on the same port and journal while the faults
/// go on. After the traffic the outbox must drain, and every
/// `message.created` event written must be in the receiver's journal,
/// accepted with a good signature; every message stored must have its event.
public enum ChaosWebhooks {
    /// `webhooks.retry_divisor` of the chaos gateway (a test-only key): the
    /// schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h becomes about
    /// 0.017, 1, 6, 24, 60, 120 and 120 s, so that an event whose attempts
    /// fail all through a one-minute outage is delivered within about a
    /// minute of the receiver's return, well inside its eight attempts
    /// (the sixth, 91 s after the first, already falls after the outage).
    public static let retryDivisor = 300

    /// How long the outbox may take to drain once the traffic has ended, at
    /// most; it fails sooner when its depth has not gone down for
    /// `drainStallSeconds`, longer than the longest wait between two attempts
    /// (120 s) that a delivery can reach here.
    public static func drainTimeout(_ mode: ChaosOptions.Mode) -> Double { mode == .quick ? 600 : 1800 }
    public static let drainStallSeconds = 150.0

    /// The gateway's [webhooks] table in a chaos run.
    public static let gatewayConfig = """
        [webhooks]
        allow_private_targets = true
        retry_divisor = \(retryDivisor)
        """

    /// The retry schedule as the chaos gateway runs it, for the log.
    public static var scheduleText: String {
        [5.0, 300, 1800, 7200, 18000, 36000, 36000].map { delay in
            let seconds = delay / Double(retryDivisor)
            return seconds == seconds.rounded() ? String(Int(seconds)) : PythonFormat.fixed(seconds, 3)
        }.joined(separator: ", ") + " s"
    }

    /// The verdict on what the database wrote and the receiver's journal holds.
    /// `eventIDs`: the `message.created` events written (nil: not read);
    /// `reportable`: the messages stored that such an event reports.
    public static func judge(
        eventIDs: [String]?, reportable: Int?, journal: WebhookJournal, failed: Int?, drainSeconds: Double?
    ) -> (outcome: ChaosWebhookOutcome, problems: [String]) {
        var outcome = ChaosWebhookOutcome()
        var problems: [String] = []
        outcome.drainSeconds = drainSeconds
        outcome.events = eventIDs?.count
        outcome.reportableMessages = reportable
        outcome.accepted = journal.accepted.count
        outcome.duplicates = journal.duplicates
        outcome.badSignatures = journal.badSignatures
        outcome.refused = journal.refused
        outcome.failedDeliveries = failed
        if drainSeconds == nil { problems.append("webhooks: the outbox did not drain (deliveries still pending)") }
        if let eventIDs {
            let missing = journal.missing(eventIDs)
            outcome.missing = missing.count
            if !missing.isEmpty {
                problems.append(
                    "webhooks: \(missing.count) of \(eventIDs.count) message.created events never arrived "
                        + "(\(missing.prefix(3).joined(separator: ", "))\(missing.count > 3 ? ", ..." : ""))")
            }
            if eventIDs.isEmpty { problems.append("webhooks: no message.created event was written") }
        } else {
            problems.append("webhooks: the events written could not be read")
        }
        if let reportable, let events = eventIDs?.count, reportable != events {
            problems.append("webhooks: \(reportable) messages stored but \(events) message.created events written")
        }
        if reportable == nil { problems.append("webhooks: the messages stored could not be counted") }
        if journal.badSignatures > 0 { problems.append("webhooks: \(journal.badSignatures) bad signatures") }
        if (failed ?? 1) != 0 {
            problems.append("webhooks: \(failed.map(String.init) ?? "?") deliveries failed for good")
        }
        return (outcome, problems)
    }
}

/// What the receiver of a chaos run got, against what was written.
public struct ChaosWebhookOutcome: Sendable, Equatable {
    public var events: Int?
    public var reportableMessages: Int?
    public var accepted = 0
    public var missing = 0
    public var duplicates = 0
    public var badSignatures = 0
    /// Answers that were not a 2xx: the receiver was not down for those, so these are bad signatures only.
    public var refused = 0
    public var failedDeliveries: Int?
    public var drainSeconds: Double?

    public init() {}

    var json: JSONValue {
        [
            "events": .optional(events), "reportable_messages": .optional(reportableMessages),
            "accepted": .int(accepted), "missing": .int(missing), "duplicates": .int(duplicates),
            "bad_signatures": .int(badSignatures), "refused": .int(refused),
            "failed_deliveries": .optional(failedDeliveries), "drain_s": .optional(drainSeconds),
            "retry_divisor": .int(ChaosWebhooks.retryDivisor),
        ]
    }
}
