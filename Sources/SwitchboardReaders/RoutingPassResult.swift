import SwitchboardChat
import SwitchboardRouting

/// What one routing pass of a workspace did, committed.
public struct RoutingPassResult: Sendable {
    public let workspaceID: String
    /// Sessions given to an operator, in queue order, each with its
    /// `assigned` event (announced as a `session.assign` is).
    public var assigned: [SessionChange] = []
    /// Sessions put back in the queue because their operator went past its
    /// grace or signed off, each with its `requeued` event.
    public var requeued: [SessionChange] = []
    /// How long each session given for the first time waited, in seconds
    /// (from its visitor's first waiting message).
    public var firstWaits: [Double] = []
    /// The queue after the pass: its head in order (at most
    /// `ChatQueries.queueHeadLimit`), its length, and how many operators
    /// still have room.
    public var snapshot: RoutingSnapshot

    public init(workspaceID: String, snapshot: RoutingSnapshot) {
        self.workspaceID = workspaceID
        self.snapshot = snapshot
    }
}
