import Synchronization

/// Where a sent message's time goes inside the gateway, stage by stage
/// (`switchboard_send_stage_seconds{stage=...}`, docs/benchmarks.md
/// "Latency"): a histogram per stage, per message.
///
/// Not the registry's histogram: a committed batch's messages share their
/// commit, hand-off and delivery times, so one `observe(count:)` records a
/// whole batch under one short lock, where the registry's would take its lock
/// once per message; `observeMany` records a batch's per-message times under
/// one lock too. Cheap enough to stay on.
public final class SendStages: Sendable {
    public enum Stage: Int, Sendable, CaseIterable {
        /// From the loop waking with the `send` frame to the writer accepting it:
        /// what the loop did before reaching this frame.
        case receive
        /// From the writer accepting the message to its batch going to PostgreSQL.
        case queue
        /// From the batch going to PostgreSQL to its commit returning.
        case commit
        /// From the commit returning (on the writer's thread) to the loop starting on the batch.
        case handoff
        /// From the loop starting on the batch to its acks and fan-out written to the sockets.
        case deliver
        /// From the loop waking with the `send` frame to its ack written: the
        /// gateway's whole part of send-to-ack, commit included.
        case total

        var label: String {
            switch self {
            case .receive: "receive"
            case .queue: "queue"
            case .commit: "commit"
            case .handoff: "handoff"
            case .deliver: "deliver"
            case .total: "total"
            }
        }
    }

    public static let name = "switchboard_send_stage_seconds"
    public static let help =
        "Where a sent message's time goes in the gateway, by stage (receive, queue, commit, handoff, deliver; total from receipt to ack written), in seconds."

    /// Bucket upper bounds in nanoseconds (plus +Inf): fine below 10 ms, where
    /// the gateway's own stages should be, so that p50 and p99 read from them are useful.
    public static let bucketBounds: [UInt64] = [
        50_000, 100_000, 250_000, 500_000, 750_000, 1_000_000, 1_500_000, 2_000_000, 3_000_000, 4_000_000,
        5_000_000, 7_500_000, 10_000_000, 15_000_000, 20_000_000, 25_000_000, 35_000_000, 50_000_000,
        75_000_000, 100_000_000, 150_000_000, 250_000_000, 500_000_000, 1_000_000_000, 2_500_000_000,
    ]

    private struct Counts {
        /// Per bucket (not cumulative), the last one +Inf.
        var buckets = [Int](repeating: 0, count: SendStages.bucketBounds.count + 1)
        var sumNanoseconds: UInt64 = 0
        var count = 0
    }

    /// Every stage's counts under one lock: it is taken once per batch and
    /// loop, by a few threads, and held for a few additions.
    private let stages = Mutex([Counts](repeating: Counts(), count: Stage.allCases.count))

    public init() {}

    /// Records `count` messages that spent `nanoseconds` in `stage`.
    public func observe(_ stage: Stage, nanoseconds: UInt64, count: Int = 1) {
        guard count > 0 else { return }
        let bucket = Self.bucket(nanoseconds)
        stages.withLock { Self.add(&$0[stage.rawValue], bucket, nanoseconds, count) }
    }

    /// Records many observations under one lock: `body` gets a function
    /// taking (stage, nanoseconds, count). Keep `body` short; it must not block.
    public func observeMany(_ body: ((Stage, UInt64, Int) -> Void) -> Void) {
        stages.withLock { stages in
            body { stage, nanoseconds, count in
                guard count > 0 else { return }
                Self.add(&stages[stage.rawValue], Self.bucket(nanoseconds), nanoseconds, count)
            }
        }
    }

    /// The stage's total count so far (tests).
    public func count(_ stage: Stage) -> Int {
        stages.withLock { $0[stage.rawValue].count }
    }

    private static func bucket(_ nanoseconds: UInt64) -> Int {
        var bucket = 0
        while bucket < bucketBounds.count && nanoseconds > bucketBounds[bucket] { bucket += 1 }
        return bucket
    }

    private static func add(_ counts: inout Counts, _ bucket: Int, _ nanoseconds: UInt64, _ count: Int) {
        counts.buckets[bucket] += count
        counts.sumNanoseconds &+= nanoseconds &* UInt64(count)
        counts.count += count
    }

    /// The family's samples in text format 0.0.4 (cumulative buckets, `le` in seconds).
    func render(into out: inout [UInt8]) {
        func line(_ text: String) {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\n"))
        }
        line("# HELP \(Self.name) \(Self.help)")
        line("# TYPE \(Self.name) histogram")
        let all = stages.withLock { $0 }
        for stage in Stage.allCases {
            let counts = all[stage.rawValue]
            var cumulative = 0
            for (index, bound) in Self.bucketBounds.enumerated() {
                cumulative += counts.buckets[index]
                line("\(Self.name)_bucket{stage=\"\(stage.label)\",le=\"\(Self.seconds(bound))\"} \(cumulative)")
            }
            line("\(Self.name)_bucket{stage=\"\(stage.label)\",le=\"+Inf\"} \(counts.count)")
            line("\(Self.name)_sum{stage=\"\(stage.label)\"} \(Self.seconds(counts.sumNanoseconds))")
            line("\(Self.name)_count{stage=\"\(stage.label)\"} \(counts.count)")
        }
    }

    /// Nanoseconds as decimal seconds without exponent or trailing zeros (`0.0025`, `1`).
    static func seconds(_ nanoseconds: UInt64) -> String {
        let whole = nanoseconds / 1_000_000_000
        var fraction = String(nanoseconds % 1_000_000_000)
        guard fraction != "0" else { return String(whole) }
        fraction = String(repeating: "0", count: 9 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(whole).\(fraction)"
    }
}
