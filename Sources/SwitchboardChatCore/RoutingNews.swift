import SwitchboardRouting

/// What routing tells the other gateway nodes (over the cluster bus), so
/// that consoles and visitors there hear of it without a read each.
package enum RoutingNews: Sendable, Equatable {
    /// Operators as they are now: the ones a change touched, or the workspace's whole list.
    case presence(workspaceID: String, operators: [OperatorPresence], complete: Bool)
    /// A pass's outcome: the queue's head, whether anyone has room.
    case queue(RoutingSnapshot)
    /// Something changed that did not fit in a notification: read it.
    case stale(workspaceID: String)
}
