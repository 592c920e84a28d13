/// When a writer shard sends: a full batch at once, a partial one when its
/// oldest command has waited the batch delay, never more than `pipelineDepth`
/// batches in flight, and nothing new once stopping. Pure, so the rule is
/// tested without a database or a clock.
struct BatchSchedule {
    let maxBatchMessages: Int
    let delayNanoseconds: UInt64
    let pipelineDepth: Int

    init(_ configuration: WriterConfiguration) {
        maxBatchMessages = configuration.maxBatchMessages
        delayNanoseconds = UInt64(configuration.maxBatchDelayMilliseconds) * 1_000_000
        pipelineDepth = configuration.pipelineDepth
    }

    /// Whether to send a batch now. `oldestAcceptedAt` is the oldest waiting
    /// command's acceptance time (ignored when `pending` is 0).
    func sendsNow(pending: Int, oldestAcceptedAt: UInt64, inFlight: Int, now: UInt64, stopping: Bool) -> Bool {
        guard !stopping, inFlight < pipelineDepth, pending > 0 else { return false }
        return pending >= maxBatchMessages || now >= oldestAcceptedAt + delayNanoseconds
    }

    /// How long the shard may sleep in poll(), in milliseconds rounded up (so
    /// it never wakes before a deadline): until the oldest command is due
    /// when a batch could then go, until `stopDeadline` while stopping, and
    /// otherwise until something happens (-1).
    func pollTimeout(
        pending: Int, oldestAcceptedAt: UInt64, inFlight: Int, now: UInt64, stopDeadline: UInt64?
    )
        -> Int32
    {
        var deadline = stopDeadline
        if stopDeadline == nil, pending > 0, inFlight < pipelineDepth {
            deadline = oldestAcceptedAt + delayNanoseconds
        }
        guard let deadline else { return -1 }
        if deadline <= now { return 0 }
        return Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
    }
}
