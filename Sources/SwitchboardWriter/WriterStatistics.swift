/// A snapshot of the writer's counters, for /metrics.
public struct WriterStatistics: Sendable, Equatable {
    /// Commands accepted and not yet sent to the database (every connection's).
    public var queueDepth: Int
    /// Batches sent and not yet committed (every connection).
    public var batchesInFlight: Int
    public var batchesCommitted: Int
    public var messagesStored: Int
    public var duplicates: Int
    public var noSession: Int
    /// Commands refused for an attachment that was not theirs to send (`.badAttachment`).
    public var badAttachments: Int
    /// Commands answered `.failed` (the server refused their batch).
    public var failures: Int
    /// Commands answered `.unavailable` after being accepted.
    public var unavailable: Int
    /// Submissions refused with `.overloaded`.
    public var overloaded: Int
    /// Connections re-established after a loss or a failed attempt.
    public var reconnects: Int
    /// Batches sent on the first connection (which alone carries every
    /// session below the split mark: `LanePlan`)...
    public var batchesSentOnFirst: Int
    /// ...and on the others (used once the split mark's commands wait).
    public var batchesSentOnOthers: Int
    /// Every connection of the writer is up.
    public var connected: Bool
    public var batchSize: WriterHistogram
    /// Microseconds from sending a batch to its commit.
    public var commitLatencyMicroseconds: WriterHistogram
}
