/// What the chat cores tell the other gateway nodes, and which sessions and
/// inboxes their clients follow (a bus that routes by session subscribes
/// only to those). Called on loop threads: never blocks.
package protocol ClusterOutlet: Sendable {
    func publish(_ event: ChatEvent)
    /// Presence and queue news for the nodes that follow the workspace (from any thread).
    func publish(_ news: RoutingNews)
    func watch(session: String)
    func unwatch(session: String)
    func watch(workspace: String)
    func unwatch(workspace: String)
}
