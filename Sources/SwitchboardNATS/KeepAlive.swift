/// When to PING a quiet server and when to give up on it. A connection that
/// has received nothing for `interval` gets a PING; one that reaches the next
/// check with `maxOutstanding` PINGs unanswered is dead, even if the kernel
/// still thinks the TCP connection is up (a server killed with its host, a
/// dropped route). Pure: the caller passes the time, in milliseconds.
struct KeepAlive {
    enum Action: Equatable {
        /// Nothing to do before this time.
        case wait(until: UInt64)
        case ping
        case dead
    }

    let interval: UInt64
    let maxOutstanding: Int
    /// When we last heard from the server or pinged it.
    private var lastActivity: UInt64
    /// PINGs sent and not answered yet (the handshake's included).
    private(set) var outstanding = 0

    init(interval: UInt64, maxOutstanding: Int, now: UInt64) {
        self.interval = interval
        self.maxOutstanding = maxOutstanding
        lastActivity = now
    }

    mutating func heard(at now: UInt64) { lastActivity = max(lastActivity, now) }

    mutating func pinged(at now: UInt64) {
        outstanding += 1
        lastActivity = max(lastActivity, now)
    }

    /// A PONG answers the oldest PING: the server answers them in order.
    mutating func ponged() { outstanding = max(0, outstanding - 1) }

    func action(at now: UInt64) -> Action {
        let due = lastActivity + interval
        if now < due { return .wait(until: due) }
        return outstanding >= maxOutstanding ? .dead : .ping
    }
}
