/// When a node runs a workspace's routing pass: at once when none is
/// running here, else once more right after the running one. So a burst of
/// triggers (200 first messages in one batch, ten operators signing in)
/// costs at most two passes, and a trigger that arrives during a pass is
/// never lost, since the next pass reads a snapshot taken after it. Passes
/// of other nodes serialize in PostgreSQL (docs/routing.md); this only
/// keeps one node from queueing many behind each other. Not thread-safe:
/// its owner holds it behind a lock.
public struct PassCoalescer: Sendable {
    /// Workspaces with a pass running; true when another was asked for meanwhile.
    private var running: [String: Bool] = [:]

    public init() {}

    /// A trigger for `workspace`: true when the caller starts a pass now.
    public mutating func request(_ workspace: String) -> Bool {
        if running[workspace] != nil {
            running[workspace] = true
            return false
        }
        running[workspace] = false
        return true
    }

    /// The running pass of `workspace` ended: true when the caller starts
    /// another now (a trigger came during it).
    public mutating func finished(_ workspace: String) -> Bool {
        guard let again = running[workspace] else { return false }
        if again {
            running[workspace] = false
            return true
        }
        running[workspace] = nil
        return false
    }

    /// The pass of `workspace` could not be started after all (no thread
    /// took it): forgotten, with any trigger that came for it meanwhile
    /// (the next heartbeat finds what they were for).
    public mutating func abandoned(_ workspace: String) {
        running[workspace] = nil
    }

    /// Whether a pass of `workspace` is running.
    public func isRunning(_ workspace: String) -> Bool { running[workspace] != nil }
}
