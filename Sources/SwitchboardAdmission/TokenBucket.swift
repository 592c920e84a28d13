/// A token bucket on a millisecond clock the caller supplies: `burst` tokens
/// at most, refilled at `ratePerSecond`. Starts full. A clock that goes
/// backwards (loops read their own coarse clocks) refills nothing.
public struct TokenBucket: Sendable, Equatable {
    public let ratePerSecond: Double
    public let burst: Double
    public private(set) var tokens: Double
    public private(set) var updatedAt: UInt64

    public init(ratePerSecond: Int, burst: Int, nowMilliseconds: UInt64) {
        precondition(ratePerSecond > 0 && burst > 0)
        self.ratePerSecond = Double(ratePerSecond)
        self.burst = Double(burst)
        tokens = Double(burst)
        updatedAt = nowMilliseconds
    }

    /// A bucket refilled at `perMinute` tokens a minute (uploads a minute), for
    /// rates too slow to name in whole tokens a second.
    public init(perMinute: Int, burst: Int, nowMilliseconds: UInt64) {
        precondition(perMinute > 0 && burst > 0)
        ratePerSecond = Double(perMinute) / 60
        self.burst = Double(burst)
        tokens = Double(burst)
        updatedAt = nowMilliseconds
    }

    private mutating func refill(_ now: UInt64) {
        guard now > updatedAt else { return }
        tokens = min(burst, tokens + Double(now - updatedAt) * ratePerSecond / 1000)
        updatedAt = now
    }

    /// Takes one token if there is one.
    public mutating func take(nowMilliseconds now: UInt64) -> Bool {
        refill(now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Whether the bucket has refilled completely by `now` (its entry can be forgotten).
    public func isFull(nowMilliseconds now: UInt64) -> Bool {
        var copy = self
        copy.refill(now)
        return copy.tokens >= burst
    }

    /// Whole seconds until the next token (at least 1), for Retry-After.
    public func secondsUntilNextToken(nowMilliseconds now: UInt64) -> Int {
        var copy = self
        copy.refill(now)
        guard copy.tokens < 1 else { return 1 }
        let seconds = (1 - copy.tokens) / ratePerSecond
        return max(1, Int(seconds.rounded(.up)))
    }
}
