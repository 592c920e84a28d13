/// When a participant whose connection went away mid-run tries again, and
/// which closes call for it. A node shutting down says goodbye with 1001 and
/// a lost network ends the socket; a widget reconnects after either (through
/// a load balancer, to another node). Every other close is the gateway
/// failing the run, and stays an unexpected close.
enum ReconnectPolicy {
    /// Attempts before the participant gives up, which fails the run: about
    /// 6.5 s of back-off in all, longer than a node takes to leave a load
    /// balancer, shorter than a run's drain.
    static let maxAttempts = 10

    /// The pause before attempt `attempt` (1-based), in nanoseconds: 50 ms,
    /// doubling up to 1 s, so that a whole node's clients coming back at once
    /// spread out instead of hammering a load balancer that has no node yet.
    static func delay(beforeAttempt attempt: Int) -> UInt64 {
        let doublings = UInt64(min(max(attempt - 1, 0), 5))
        return min(50_000_000 << doublings, 1_000_000_000)
    }

    /// Whether a connection that ended for `reason` should be made again.
    static func retries(after reason: CloseReason) -> Bool {
        switch reason {
        case .closeFrame(let code): code == 1001
        case .transport: true
        // A load balancer with no node ready answers the upgrade 502, 503 or
        // 504; any other answer would be refused again.
        case .upgradeRefused(let status): isServerUnavailable(status)
        case .breach, .local: false
        }
    }

    /// "HTTP/1.1 503 Service Unavailable..." and the like.
    private static func isServerUnavailable(_ status: String) -> Bool {
        let code = status.split(separator: " ", maxSplits: 2).dropFirst().first ?? ""
        return ["502", "503", "504"].contains(code)
    }
}
