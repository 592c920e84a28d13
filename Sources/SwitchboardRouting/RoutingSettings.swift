/// Routing's configuration (`routing.*`, docs/routing.md), read once at start-up.
public struct RoutingSettings: Sendable, Equatable {
    public var mode: RoutingMode
    /// The capacity of an operator that has none of its own.
    public var maxSessionsPerOperator: Int
    /// How long an operator whose last connection closed (or whose node
    /// stopped answering) still counts as connected: a page reload moves nothing.
    public var offlineGraceSeconds: Int
    /// Whether an operator gone past its grace has its open sessions put back in the queue.
    public var requeueOnOffline: Bool
    /// How often each node refreshes its operators' presence and sweeps for
    /// work a lost trigger left behind.
    public var heartbeatSeconds: Int

    /// The protocol's defaults (docs/protocol.md, "Routing").
    public init(
        mode: RoutingMode = .leastBusy, maxSessionsPerOperator: Int = 5, offlineGraceSeconds: Int = 30,
        requeueOnOffline: Bool = true, heartbeatSeconds: Int = 5
    ) {
        self.mode = mode
        self.maxSessionsPerOperator = maxSessionsPerOperator
        self.offlineGraceSeconds = offlineGraceSeconds
        self.requeueOnOffline = requeueOnOffline
        self.heartbeatSeconds = heartbeatSeconds
    }

    /// Whether passes put sessions back in the queue: never in `manual`
    /// mode, which leaves assignments to people.
    public var requeues: Bool { requeueOnOffline && mode != .manual }

    /// How fresh an operator's grace may be and still be left as it is by a
    /// beat: one heartbeat, or half of what the grace leaves beyond one when
    /// that is less. Beats run back to back while consoles come and go, and
    /// each renewing every operator of the node rewrote hundreds of rows
    /// many times a second (3,000 row versions a second in a soak run, whose
    /// dead versions slowed every beat until autovacuum came); renewed at
    /// most once a slack, a connected operator's grace still never lapses
    /// between two beats: at least half of what the grace leaves beyond a
    /// heartbeat remains (start-up checks that the heartbeat is at most
    /// half of the grace).
    public var renewalSlackSeconds: Double {
        max(0, min(Double(heartbeatSeconds), Double(offlineGraceSeconds - heartbeatSeconds) / 2))
    }
}
