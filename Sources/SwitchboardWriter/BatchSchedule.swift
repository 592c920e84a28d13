/// When a writer shard sends: a full batch at once (up to `pipelineDepth`
/// batches in flight); a partial one only when nothing is in flight, once its
/// oldest command has waited the batch delay (none by default) and the last
/// batch went at least the minimum interval ago; nothing new once stopping.
/// Pure, so the rule is tested without a database or a clock.
///
/// Partial batches follow the commits rather than a clock: while the server
/// commits one batch the next gathers everything that arrives meanwhile, and
/// goes the moment the commit returns. An idle database gets a message at
/// once (no window to wait out), and a busy one gets fewer, larger batches
/// (its fixed cost per batch, not per message, is what it was spending
/// its time on), so the batch size follows the load with no setting to tune.
///
/// Where commits return faster than the minimum interval (fast storage) and
/// messages arrive faster than that too, commit-paced batches stay small and
/// the connection is never idle: every batch pays the server's fixed cost for
/// a handful of messages. The interval bounds how often a partial batch goes,
/// so there the batches grow instead; a message that finds the last batch
/// sent longer ago than the interval (a quiet shard, or commits slower than
/// it) goes as before, without waiting.
struct BatchSchedule {
    let maxBatchMessages: Int
    let delayNanoseconds: UInt64
    let intervalNanoseconds: UInt64
    let pipelineDepth: Int

    /// The longest sleep asked for: a shard with a far deadline wakes at least this often.
    static let longestSleepNanoseconds: UInt64 = 60_000_000_000

    init(_ configuration: WriterConfiguration) {
        maxBatchMessages = configuration.maxBatchMessages
        delayNanoseconds = UInt64(configuration.maxBatchDelayMilliseconds) * 1_000_000
        intervalNanoseconds = UInt64(configuration.minBatchIntervalMicroseconds) * 1_000
        pipelineDepth = configuration.pipelineDepth
    }

    /// Whether to send a batch now. `oldestAcceptedAt` is the oldest waiting
    /// command's acceptance time (ignored when `pending` is 0); `lastSentAt`
    /// when the shard last sent a batch (0 before its first).
    func sendsNow(
        pending: Int, oldestAcceptedAt: UInt64, lastSentAt: UInt64, inFlight: Int, now: UInt64, stopping: Bool
    ) -> Bool {
        guard !stopping, inFlight < pipelineDepth, pending > 0 else { return false }
        if pending >= maxBatchMessages { return true }
        return inFlight == 0 && now >= partialDue(oldestAcceptedAt: oldestAcceptedAt, lastSentAt: lastSentAt)
    }

    /// How long the shard may sleep in poll(), in nanoseconds (nil: until
    /// something happens, a commit returning or a full batch arriving): until
    /// a partial batch is due when one could then go (nothing in flight), and
    /// until `stopDeadline` while stopping; a minute at most.
    func pollTimeout(
        pending: Int, oldestAcceptedAt: UInt64, lastSentAt: UInt64, inFlight: Int, now: UInt64,
        stopDeadline: UInt64?
    ) -> UInt64? {
        var deadline = stopDeadline
        if stopDeadline == nil, pending > 0, inFlight == 0 {
            deadline = partialDue(oldestAcceptedAt: oldestAcceptedAt, lastSentAt: lastSentAt)
        }
        guard let deadline else { return nil }
        return deadline <= now ? 0 : min(deadline - now, Self.longestSleepNanoseconds)
    }

    private func partialDue(oldestAcceptedAt: UInt64, lastSentAt: UInt64) -> UInt64 {
        max(oldestAcceptedAt + delayNanoseconds, lastSentAt + intervalNanoseconds)
    }
}
