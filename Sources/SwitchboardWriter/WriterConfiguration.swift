/// How a `BatchWriter` batches, queues, shards and reconnects.
///
/// The writer runs `connections` shards, each a thread with its own
/// connection and queue; a session's commands always go to the same shard.
/// In each shard, a full batch (`maxBatchMessages` commands) is sent at once,
/// with up to `pipelineDepth` batches per connection on the wire, so the next
/// full batch is sent while the server commits the previous one. A partial
/// batch is sent only when nothing is in flight (once its oldest command has
/// waited `maxBatchDelayMilliseconds`, by default not at all, and at least
/// `minBatchIntervalMicroseconds` after the shard's last batch): the next
/// batch goes the moment the previous commit returns (`BatchSchedule`). With
/// `turnWaitLimitMicroseconds` set, the shards' partial batches take turns,
/// each waiting at most that long for another's commit (`CommitTurns`).
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
    /// per shard (0: none). Binds only where commits return sooner than
    /// this and messages keep arriving: there it trades up to this much
    /// latency for fewer, larger batches (`BatchSchedule`).
    public var minBatchIntervalMicroseconds: Int
    /// How long a shard's due partial batch waits while another shard's
    /// partial batch commits (0, the default: the shards do not take
    /// turns). Backends committing small batches one after the other cost
    /// the database less than side by side, for a wait of up to this long;
    /// full batches still go side by side (`CommitTurns`). The limit bounds
    /// what one shard's slow commit (a row lock held elsewhere, say) costs
    /// the others.
    public var turnWaitLimitMicroseconds: Int
    /// Commands waiting to be sent in one shard, over which `submit` answers
    /// `.overloaded` for that shard's sessions (so the writer holds at most
    /// `connections * queueCapacity`).
    public var queueCapacity: Int
    /// Batches sent and not yet committed at any time, per connection (only
    /// full batches are sent behind another).
    public var pipelineDepth: Int
    /// Writer threads, each with its own PostgreSQL connection (and backend):
    /// one backend saturates one core, so a second one roughly doubles what
    /// the database can store. Sessions are spread over them by a stable
    /// hash of the session id.
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
        turnWaitLimitMicroseconds: Int = 0,
        queueCapacity: Int = 65536,
        pipelineDepth: Int = 2,
        connections: Int = 2,
        reconnectBackoffMinimumMilliseconds: Int = 50,
        reconnectBackoffMaximumMilliseconds: Int = 5000
    ) {
        precondition(maxBatchMessages >= 1, "maxBatchMessages must be at least 1")
        precondition(maxBatchDelayMilliseconds >= 0, "maxBatchDelayMilliseconds must not be negative")
        precondition(minBatchIntervalMicroseconds >= 0, "minBatchIntervalMicroseconds must not be negative")
        precondition(turnWaitLimitMicroseconds >= 0, "turnWaitLimitMicroseconds must not be negative")
        precondition(queueCapacity >= 1, "queueCapacity must be at least 1")
        precondition(pipelineDepth >= 1, "pipelineDepth must be at least 1")
        precondition(connections >= 1, "connections must be at least 1")
        precondition(
            reconnectBackoffMinimumMilliseconds >= 1
                && reconnectBackoffMaximumMilliseconds >= reconnectBackoffMinimumMilliseconds,
            "reconnect backoff must satisfy 1 <= minimum <= maximum")
        self.databaseURL = databaseURL
        self.maxBatchMessages = maxBatchMessages
        self.maxBatchDelayMilliseconds = maxBatchDelayMilliseconds
        self.minBatchIntervalMicroseconds = minBatchIntervalMicroseconds
        self.turnWaitLimitMicroseconds = turnWaitLimitMicroseconds
        self.queueCapacity = queueCapacity
        self.pipelineDepth = pipelineDepth
        self.connections = connections
        self.reconnectBackoffMinimumMilliseconds = reconnectBackoffMinimumMilliseconds
        self.reconnectBackoffMaximumMilliseconds = reconnectBackoffMaximumMilliseconds
    }
}
