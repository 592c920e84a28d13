/// A workspace's activity over a time window [from, to), for the analytics endpoint.
public struct Analytics: Sendable, Equatable {
    /// Sessions (not deleted) created in the window.
    public var sessionsOpened: Int
    /// Sessions (not deleted) whose closed_at is in the window.
    public var sessionsClosed: Int
    /// Messages of the workspace's non-deleted sessions created in the window, by sender role.
    public var messagesByRole: [String: Int]
    /// Sessions created in the window with both a first visitor message and a first operator reply.
    public var firstResponseCount: Int
    /// Median seconds from the first visitor message to the first operator reply (interpolated); nil when
    /// `firstResponseCount` is 0.
    public var firstResponseMedianSeconds: Double?
    /// The 90th percentile of the same (interpolated); nil when `firstResponseCount` is 0.
    public var firstResponseP90Seconds: Double?
    /// Sessions created in the window with a first visitor message and a first assignment.
    public var waitCount: Int
    /// Median seconds from the first visitor message to the first assignment (`first_assigned_at`); nil when
    /// `waitCount` is 0.
    public var waitMedianSeconds: Double?
    public var waitP90Seconds: Double?
    /// Sessions closed in the window where a visitor wrote and no operator ever replied.
    public var unanswered: Int
    /// Satisfaction ratings given in the window.
    public var csat = CsatFigures()

    public init(
        sessionsOpened: Int, sessionsClosed: Int, messagesByRole: [String: Int], firstResponseCount: Int,
        firstResponseMedianSeconds: Double?, firstResponseP90Seconds: Double?, waitCount: Int = 0,
        waitMedianSeconds: Double? = nil, waitP90Seconds: Double? = nil, unanswered: Int = 0
    ) {
        self.sessionsOpened = sessionsOpened
        self.sessionsClosed = sessionsClosed
        self.messagesByRole = messagesByRole
        self.firstResponseCount = firstResponseCount
        self.firstResponseMedianSeconds = firstResponseMedianSeconds
        self.firstResponseP90Seconds = firstResponseP90Seconds
        self.waitCount = waitCount
        self.waitMedianSeconds = waitMedianSeconds
        self.waitP90Seconds = waitP90Seconds
        self.unanswered = unanswered
    }
}

/// Satisfaction ratings (`csat`) given in a window: how many of each, in all
/// and per assigned operator (`""`: none assigned).
public struct CsatFigures: Sendable, Equatable {
    /// `distribution[r - 1]`: ratings of r.
    public var distribution: [Int] = [0, 0, 0, 0, 0]
    public var byOperator: [String: [Int]] = [:]

    public init() {}

    public var answered: Int { distribution.reduce(0, +) }

    public static func mean(_ distribution: [Int]) -> Double? {
        let count = distribution.reduce(0, +)
        guard count > 0 else { return nil }
        return Double(distribution.enumerated().reduce(0) { $0 + ($1.offset + 1) * $1.element }) / Double(count)
    }

    mutating func add(rating: Int, operatorID: String, count: Int) {
        guard (1...5).contains(rating) else { return }
        distribution[rating - 1] += count
        byOperator[operatorID, default: [0, 0, 0, 0, 0]][rating - 1] += count
    }
}
