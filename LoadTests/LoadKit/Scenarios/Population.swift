import SwitchboardAuth
import SwitchboardSystem

/// Builds a shard's sessions and participants, with tokens minted from the
/// gateway's secret: per session one visitor and `operatorsPerSession` operators,
/// each on its node of the cluster (`NodeSpread`).
struct Population {
    var visitors: [Participant] = []
    var operators: [Participant] = []
    /// Participants per node (index into the shard's nodes), for the report.
    var perNode: [Int]

    /// `firstSession` is the run-wide number of the shard's first session, so
    /// that the spread over nodes does not depend on `--threads`.
    init(
        shard: Shard, sessions: Int, operatorsPerSession: Int, firstIndex: Int, firstSession: Int, secret: String,
        workspace: String
    ) {
        let now = UnixClock.nowSeconds()
        let nodes = shard.nodes.count
        perNode = Array(repeating: 0, count: nodes)
        var index = firstIndex
        /// The next participant, with a token for its role.
        func participant(_ role: Participant.Role, in session: Int, node: Int) -> Participant {
            defer { index += 1 }
            perNode[node] += 1
            let (tokenRole, prefix, title): (Role, String, String) =
                role == .visitor ? (.visitor, "lt-v", "Visitor") : (.operator, "lt-o", "Operator")
            let claims = TokenClaims(
                subject: "\(prefix)\(index)", role: tokenRole, workspaceID: workspace, name: "\(title) \(index)",
                issuedAt: now, expiresAt: now + 12 * 3600)
            return Participant(
                index: index, role: role, token: TokenMinter.mint(claims, secret: secret), session: session,
                node: node, shard: shard)
        }
        shard.sessions = Array(repeating: SessionState(), count: sessions)
        for session in 0..<sessions {
            let number = firstSession + session
            visitors.append(
                participant(.visitor, in: session, node: NodeSpread.visitor(session: number, nodes: nodes)))
            for k in 0..<operatorsPerSession {
                operators.append(
                    participant(.operator, in: session, node: NodeSpread.operator(k, session: number, nodes: nodes)))
            }
        }
        shard.participants = visitors + operators
    }
}
