/// Which node of a cluster (an index into the `--url`s) each participant of a
/// session connects to. A session whose visitor and operators sit on one node
/// never makes the gateway carry a message between nodes; spreading them makes
/// every delivery cross the cluster, which is what a cluster run is for.
///
/// Session `i` of `n` nodes: the visitor on node `i % n`, and its operators on
/// the other nodes in turn, starting with the next one (operator `k` on
/// `(i + 1 + k) % n` while `k < n - 1`). More operators than other nodes wrap
/// round the other nodes again, never onto the visitor's. Deterministic: a
/// rerun, or a reconnect, finds every participant on the same node.
enum NodeSpread {
    /// The node of session `session`'s visitor.
    static func visitor(session: Int, nodes: Int) -> Int {
        session % nodes
    }

    /// The node of operator `k` (0-based) of session `session`.
    static func `operator`(_ k: Int, session: Int, nodes: Int) -> Int {
        guard nodes > 1 else { return 0 }
        return (session + 1 + k % (nodes - 1)) % nodes
    }
}
