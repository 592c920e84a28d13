/// When a writer shard sends: a full batch at once (up to `pipelineDepth`
/// batches in flight); a partial one only when nothing is in flight, and then
/// once its oldest command has waited the batch delay (none by default);
/// nothing new once stopping. Pure, so the rule is tested without a database
/// or a clock.
///
/// Partial batches follow the commits rather than a clock: while the server
/// commits one batch the next gathers everything that arrives meanwhile, and
/// goes the moment the commit returns. An idle database gets a message at
/// once (no window to wait out), and a busy one gets fewer, larger batches
/// (its fixed cost per batch, not per message, is what it was spending
/// its time on), so the batch size follows the load with no setting to tune.
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
        if pending >= maxBatchMessages { return true }
        return inFlight == 0 && now >= oldestAcceptedAt + delayNanoseconds
    }

    /// How long the shard may sleep in poll(), in milliseconds rounded up (so
    /// it never wakes before a deadline): until the oldest command is due
    /// when a partial batch could then go (nothing in flight), until
    /// `stopDeadline` while stopping, and otherwise until something happens
    /// (-1): a commit returning, or a full batch arriving.
    func pollTimeout(
        pending: Int, oldestAcceptedAt: UInt64, inFlight: Int, now: UInt64, stopDeadline: UInt64?
    )
        -> Int32
    {
        var deadline = stopDeadline
        if stopDeadline == nil, pending > 0, inFlight == 0 {
            deadline = oldestAcceptedAt + delayNanoseconds
        }
        guard let deadline else { return -1 }
        if deadline <= now { return 0 }
        return Int32(min((deadline - now + 999_999) / 1_000_000, 60_000))
    }
}
