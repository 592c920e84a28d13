/// How a `BatchWriter` batches, queues, spreads over connections and reconnects.
///
/// The writer is one thread with `connections` connections ("lanes") and
/// one queue. Below `splitMarkMessages` waiting, lane 0 alone sends,
/// one batch at a time; beyond it each lane sends the sessions whose home
/// it is (`LanePlan`). On a lane, a full batch (`maxBatchMessages` commands)
/// is sent at once, with up to `pipelineDepth` batches on the wire, so the
/// next full batch is sent while the server commits the previous one. A
/// partial batch is sent only when nothing is in flight on its lane (once
/// its oldest command has waited `maxBatchDelayMilliseconds`, by default not
/// at all, and at least `minBatchIntervalMicroseconds` after the lane's last
/// batch): the next batch goes the moment the previous commit returns
/// (`BatchSchedule`).
public struct WriterConfiguration: Sendable {
    /// libpq URL or key/value string of the database to write to.
    public var databaseURL: String
    /// Largest batch: one statement, one commit.
    public var maxBatchMessages: Int
    /// How long a command waits for company before a partial batch is sent
    /// to an idle connection (0: at once). While a batch is in flight, a
    /// partial batch waits for its commit whatever this says.
    public var maxBatchDelayMilliseconds: Int
    /// The least time between one batch sent and a partial batch after it,
    /// per lane (0: none). Binds only where commits return sooner than
    /// this and messages keep arriving: there it trades up to this much
    /// latency for fewer, larger batches (`BatchSchedule`).
    public var minBatchIntervalMicroseconds: Int
    /// Commands waiting (all sessions') at which each connection sends its
    /// own sessions' instead of the first carrying every session (at most
    /// `maxBatchMessages`; `LanePlan`). Lower trades database CPU for
    /// latency where one connection keeps up but commits larger batches:
    /// 1 sends side by side whenever two connections have work.
    public var splitMarkMessages: Int
    /// Commands waiting to be sent, per connection: over
    /// `connections * queueCapacity` waiting, `submit` answers `.overloaded`.
    public var queueCapacity: Int
    /// Batches sent and not yet committed at any time, per connection (only
    /// full batches are sent behind another).
    public var pipelineDepth: Int
    /// PostgreSQL connections (and backends) of the writer's thread: one
    /// backend saturates one core, so a second one roughly doubles what the
    /// database can store when the load needs it. Each session has a home
    /// connection by a stable hash of its id; below `splitMarkMessages`
    /// waiting, the first connection alone carries every session (`LanePlan`).
    /// At most 64 (`LaneSet`).
    public var connections: Int
    /// First wait before reconnecting after the connection is lost.
    public var reconnectBackoffMinimumMilliseconds: Int
    /// The wait doubles after each failed attempt, up to this.
    public var reconnectBackoffMaximumMilliseconds: Int

    public init(
        databaseURL: String,
        maxBatchMessages: Int = 1024,
        maxBatchDelayMilliseconds: Int = 0,
        minBatchIntervalMicroseconds: Int = 2_000,
        splitMarkMessages: Int = 256,
        queueCapacity: Int = 65536,
        pipelineDepth: Int = 2,
        connections: Int = 2,
        reconnectBackoffMinimumMilliseconds: Int = 50,
        reconnectBackoffMaximumMilliseconds: Int = 5000
    ) {
        precondition(maxBatchMessages >= 1, "maxBatchMessages must be at least 1")
        precondition(maxBatchDelayMilliseconds >= 0, "maxBatchDelayMilliseconds must not be negative")
        precondition(minBatchIntervalMicroseconds >= 0, "minBatchIntervalMicroseconds must not be negative")
        precondition(splitMarkMessages >= 1, "splitMarkMessages must be at least 1")
        precondition(queueCapacity >= 1, "queueCapacity must be at least 1")
        precondition(pipelineDepth >= 1, "pipelineDepth must be at least 1")
        precondition(
            connections >= 1 && connections <= LaneSet.capacity, "connections must be between 1 and \(LaneSet.capacity)"
        )
        precondition(
            reconnectBackoffMinimumMilliseconds >= 1
                && reconnectBackoffMaximumMilliseconds >= reconnectBackoffMinimumMilliseconds,
            "reconnect backoff must satisfy 1 <= minimum <= maximum")
        self.databaseURL = databaseURL
        self.maxBatchMessages = maxBatchMessages
        self.maxBatchDelayMilliseconds = maxBatchDelayMilliseconds
        self.minBatchIntervalMicroseconds = minBatchIntervalMicroseconds
        self.splitMarkMessages = splitMarkMessages
        self.queueCapacity = queueCapacity
        self.pipelineDepth = pipelineDepth
        self.connections = connections
        self.reconnectBackoffMinimumMilliseconds = reconnectBackoffMinimumMilliseconds
        self.reconnectBackoffMaximumMilliseconds = reconnectBackoffMaximumMilliseconds
    }
}
