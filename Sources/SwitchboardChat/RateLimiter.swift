/// Per-connection message rate: a token bucket plus strike counting for repeated abuse.
///
/// The bucket holds at most `burst` tokens, starts full and refills continuously at
/// `messagesPerSecond`; each admitted frame spends one token. A frame that finds less than one
/// token is refused (a strike). Strikes are counted in a fixed window that opens at the first
/// strike after the previous window expired and lasts `strikeWindowMilliseconds`: the
/// `strikesBeforeClose`-th strike inside one window is `abusive`, every earlier one `limited`.
/// A strike at or after the window's end opens a new window counting 1. Admitted frames do not
/// reset the count, so a client that keeps hammering at just over the rate is still closed.
///
/// Constant time, no allocation: a few stored numbers per connection.
public struct RateLimiter: Sendable {
    public enum Decision: Sendable, Equatable {
        /// Process the frame.
        case allowed
        /// Refuse this frame with `rate_limited`.
        case limited
        /// Close the connection with 4008.
        case abusive
    }

    private let tokensPerMillisecond: Double
    private let capacity: Double
    private let strikesBeforeClose: Int
    private let strikeWindowMilliseconds: UInt64

    private var tokens: Double
    /// When `tokens` was last brought up to date; nil until the first frame.
    private var refilledAt: UInt64?
    private var strikes = 0
    private var strikeWindowStart: UInt64 = 0

    public init(
        messagesPerSecond: Double, burst: Int, strikesBeforeClose: Int, strikeWindowMilliseconds: UInt64 = 10_000
    ) {
        precondition(messagesPerSecond > 0 && messagesPerSecond.isFinite, "messagesPerSecond must be positive")
        precondition(burst >= 1, "burst must be at least 1")
        precondition(strikesBeforeClose >= 1, "strikesBeforeClose must be at least 1")
        tokensPerMillisecond = messagesPerSecond / 1000
        capacity = Double(burst)
        tokens = Double(burst)
        self.strikesBeforeClose = strikesBeforeClose
        self.strikeWindowMilliseconds = strikeWindowMilliseconds
    }

    /// `nowMilliseconds` is a monotonic clock; a value earlier than the last one counts as no time passing.
    public mutating func admit(nowMilliseconds now: UInt64) -> Decision {
        if let last = refilledAt {
            if now > last {
                tokens = min(capacity, tokens + Double(now - last) * tokensPerMillisecond)
                refilledAt = now
            }
        } else {
            refilledAt = now
        }

        if tokens >= 1 {
            tokens -= 1
            return .allowed
        }
        if strikes == 0 || now < strikeWindowStart || now - strikeWindowStart >= strikeWindowMilliseconds {
            strikeWindowStart = now
            strikes = 0
        }
        strikes += 1
        return strikes >= strikesBeforeClose ? .abusive : .limited
    }
}
