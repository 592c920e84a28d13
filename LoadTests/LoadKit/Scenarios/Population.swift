import SwitchboardAuth
import SwitchboardSystem

/// Builds a shard's sessions and participants, with tokens minted from the
/// gateway's secret: per session one visitor and `operatorsPerSession` operators.
struct Population {
    var visitors: [Participant] = []
    var operators: [Participant] = []

    init(
        shard: Shard, sessions: Int, operatorsPerSession: Int, firstIndex: Int, secret: String, workspace: String
    ) {
        let now = UnixClock.nowSeconds()
        var index = firstIndex
        /// The next participant, with a token for its role.
        func participant(_ role: Participant.Role, in session: Int) -> Participant {
            defer { index += 1 }
            let (tokenRole, prefix, title): (Role, String, String) =
                role == .visitor ? (.visitor, "lt-v", "Visitor") : (.operator, "lt-o", "Operator")
            let claims = TokenClaims(
                subject: "\(prefix)\(index)", role: tokenRole, workspaceID: workspace, name: "\(title) \(index)",
                issuedAt: now, expiresAt: now + 12 * 3600)
            return Participant(
                index: index, role: role, token: TokenMinter.mint(claims, secret: secret), session: session,
                shard: shard)
        }
        shard.sessions = Array(repeating: SessionState(), count: sessions)
        for session in 0..<sessions {
            visitors.append(participant(.visitor, in: session))
            for _ in 0..<operatorsPerSession { operators.append(participant(.operator, in: session)) }
        }
        shard.participants = visitors + operators
    }
}
