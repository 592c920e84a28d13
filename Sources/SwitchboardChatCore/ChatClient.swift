import SwitchboardAuth
import SwitchboardChat
import SwitchboardMetrics

/// One connection's chat state, kept by its core.
package final class ChatClient {
    let peer: ChatPeer
    /// Who said `hello` on it; nil until then.
    var identity: Identity?
    /// Loop time by which `hello` must have come.
    let authDeadline: UInt64
    /// Frames per second, with strikes for a client that keeps pushing.
    var limiter: RateLimiter
    /// The sessions it is joined to (each also listed in `ChatCore.sessions`).
    var joined: [String: Subscription] = [:]
    /// `session.create`s sent to the readers and not yet answered: they count
    /// against the joined-sessions cap, so pipelined creates cannot pass it.
    var pendingCreates = 0
    var inboxWorkspace: String?
    /// The workspace whose presence it follows (`presence.subscribe`).
    var presenceWorkspace: String?
    var nextJoinID: UInt64 = 0

    init(peer: ChatPeer, authDeadline: UInt64, limiter: RateLimiter) {
        self.peer = peer
        self.authDeadline = authDeadline
        self.limiter = limiter
    }

    /// How /metrics counts it.
    var role: ConnectionRole {
        switch identity?.role {
        case nil: .unauthenticated
        case .visitor: .visitor
        case .operator: .operator
        case .admin: .admin
        }
    }
}
