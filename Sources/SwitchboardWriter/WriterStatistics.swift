/// A snapshot of the writer's counters, for /metrics.
public struct WriterStatistics: Sendable, Equatable {
    /// Commands accepted and not yet sent to the database (every shard).
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
    /// Partial batches that waited for another connection's commit and went
    /// once it committed (`writer.turn_wait_limit_us`)...
    public var turnWaitsEndedByCommit: Int
    /// ...and those whose wait the limit ended (the other commit took longer).
    public var turnWaitsEndedByLimit: Int
    /// Every connection of the writer is up.
    public var connected: Bool
    public var batchSize: WriterHistogram
    /// Microseconds from sending a batch to its commit.
    public var commitLatencyMicroseconds: WriterHistogram
}
