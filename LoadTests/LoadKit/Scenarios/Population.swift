import SwitchboardAuth

/// Builds a shard's sessions and participants, with tokens minted from the
/// gateway's secret: per session one visitor and `operatorsPerSession` operators.
struct Population {
    var visitors: [Participant] = []
    var operators: [Participant] = []

    init(
        shard: Shard, sessions: Int, operatorsPerSession: Int, firstIndex: Int, secret: String, workspace: String
    ) {
        let now = UnixClock.nowSeconds()
        func token(_ subject: String, _ role: Role, _ name: String) -> String {
            TokenMinter.mint(
                TokenClaims(
                    subject: subject, role: role, workspaceID: workspace, name: name, issuedAt: now,
                    expiresAt: now + 12 * 3600),
                secret: secret)
        }
        var index = firstIndex
        shard.sessions = Array(repeating: SessionState(), count: sessions)
        for session in 0..<sessions {
            visitors.append(
                Participant(
                    index: index, role: .visitor, token: token("lt-v\(index)", .visitor, "Visitor \(index)"),
                    session: session, shard: shard))
            index += 1
            for _ in 0..<operatorsPerSession {
                operators.append(
                    Participant(
                        index: index, role: .operator, token: token("lt-o\(index)", .operator, "Operator \(index)"),
                        session: session, shard: shard))
                index += 1
            }
        }
        shard.participants = visitors + operators
    }

    var everyone: [Participant] { visitors + operators }
}
