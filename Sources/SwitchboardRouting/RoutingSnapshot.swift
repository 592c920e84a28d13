/// A workspace's queue as a routing pass left it: what a visitor's
/// `availability` (its position, whether anyone is there) is made from.
public struct RoutingSnapshot: Sendable, Equatable {
    public let workspaceID: String
    /// The waiting sessions, oldest first (the head only, when the queue is long).
    public let queue: [String]
    /// How many sessions wait in all.
    public let queueLength: Int
    /// Operators online, connected and below capacity after the pass.
    public let availableOperators: Int

    public init(workspaceID: String, queue: [String], queueLength: Int, availableOperators: Int) {
        self.workspaceID = workspaceID
        self.queue = queue
        self.queueLength = queueLength
        self.availableOperators = availableOperators
    }

    /// The 1-based place of `sessionID` in the queue; nil when it does not
    /// wait, or waits beyond the head this snapshot holds.
    public func position(of sessionID: String) -> Int? {
        queue.firstIndex(of: sessionID).map { $0 + 1 }
    }
}
