/// How this node hears of the other nodes' committed messages and events,
/// and tells them of its own (`cluster.bus`).
public protocol ClusterBus: AnyObject, Sendable {
    /// `postgres`, `nats` or `none`, as configured.
    var name: String { get }
    var state: BusState { get }
    /// Starts the bus's own thread; `handlers` run on it.
    func start(_ handlers: BusHandlers)
    func stop()
    /// From any thread, never blocks: `event` for the other nodes (committed
    /// batches after their commit, in commit order). False when it was not
    /// sent: no other node is there to hear it, or it was dropped (counted
    /// in `droppedEvents`).
    @discardableResult func publish(_ event: BusEvent) -> Bool
    /// Events (or their publications) lost to a full buffer or a failed send
    /// since the start, for `switchboard_bus_dropped_total`.
    var droppedEvents: Int { get }
    /// The gateway has read from the database what the bus may have carried
    /// while connection `generation` was being made: the bus is live again.
    func caughtUp(generation: UInt64)
    /// Interest, for buses that route by session (NATS); counted, so every
    /// `watch` needs its `unwatch`.
    func watch(session: String)
    func unwatch(session: String)
    func watch(workspace: String)
    func unwatch(workspace: String)
    /// Called every 100 ms or so from the gateway's poller thread, for timed work.
    func tick()
}

extension ClusterBus {
    public func tick() {}
}

/// What `/readyz` reports of the bus.
public enum BusState: String, Sendable {
    /// Live: notifications arrive as they are sent.
    case connected
    /// Connected, and reading from the database what was missed meanwhile.
    case catchingUp = "catching_up"
    /// No connection: the gateway polls the database for its sessions.
    case disconnected
}

/// The gateway's side of a bus; each runs on the bus's thread and must not block it for long.
public struct BusHandlers: Sendable {
    /// A notification from another node.
    public var received: @Sendable (BusNotification) -> Void
    /// A connection was made (the first, or again after a loss): anything
    /// sent meanwhile may be lost; read it, then call `caughtUp(generation:)`.
    public var connected: @Sendable (_ generation: UInt64) -> Void
    /// The connection was lost.
    public var disconnected: @Sendable () -> Void

    public init(
        received: @escaping @Sendable (BusNotification) -> Void,
        connected: @escaping @Sendable (_ generation: UInt64) -> Void,
        disconnected: @escaping @Sendable () -> Void
    ) {
        self.received = received
        self.connected = connected
        self.disconnected = disconnected
    }
}

/// `cluster.bus = "none"`: one node, nobody to tell.
public final class NoBus: ClusterBus {
    public init() {}
    public var name: String { "none" }
    public var state: BusState { .connected }
    public func start(_ handlers: BusHandlers) {}
    public func stop() {}
    public func publish(_ event: BusEvent) -> Bool { false }
    public var droppedEvents: Int { 0 }
    public func caughtUp(generation: UInt64) {}
    public func watch(session: String) {}
    public func unwatch(session: String) {}
    public func watch(workspace: String) {}
    public func unwatch(workspace: String) {}
}
