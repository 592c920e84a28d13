/// When a failed delivery is tried again (PROTOCOL.md, "Webhooks"): after 5 s,
/// 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then never. Eight attempts over
/// about 27.6 hours, so that a receiver down for a day still gets every event.
public struct RetrySchedule: Sendable, Equatable {
    /// Seconds to wait after the failed attempt n (1-based) at index n - 1.
    public static let delays: [Double] = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600]
    /// The first attempt and one per delay.
    public static let maximumAttempts = delays.count + 1

    /// Multiplies every delay: 1 in production; tests shrink the schedule with
    /// one over the test-only key `webhooks.retry_divisor` (1000 makes 5 s into 5 ms).
    public let scale: Double

    public init(scale: Double = 1) {
        precondition(scale > 0 && scale.isFinite, "a retry scale is a positive number")
        self.scale = scale
    }

    /// Seconds from the end of failed attempt `attempt` (1-based) to the next
    /// one; nil when it was the last: the delivery has failed for good.
    public func delay(afterFailedAttempt attempt: Int) -> Double? {
        precondition(attempt >= 1, "attempts are counted from 1")
        guard attempt <= Self.delays.count else { return nil }
        return Self.delays[attempt - 1] * scale
    }

    /// When the next attempt is due, in seconds since the epoch, after attempt
    /// `attempt` failed at `now`; nil when there is none.
    public func nextAttemptAt(afterFailedAttempt attempt: Int, failedAt now: Double) -> Double? {
        delay(afterFailedAttempt: attempt).map { now + $0 }
    }
}
