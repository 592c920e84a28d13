/// What the writer's connections went through, for the operator's log:
/// without it a writer that cannot reach its database (a wrong password, a
/// missing database, an unmigrated schema whose statement fails to prepare)
/// only answers `unavailable` to every send, with nothing saying why.
/// `connection` is the lane's index (0 to `connections` - 1).
public enum WriterConnectionEvent: Sendable, Equatable {
    /// Connecting failed. Reported on the first failure and again only when
    /// the reason changes, not on every retry of the backoff.
    case connectFailed(connection: Int, reason: String)
    /// A working connection broke, or (`connection` nil) the writer's thread
    /// could not wait on its connections; the writer reconnects all of them.
    case lost(connection: Int?, reason: String)
    /// Connected again after failures or a loss (not on a first clean connect).
    case restored(failedAttempts: Int)
}
