import SwitchboardChat
import Testing

@Suite struct RateLimiterTests {
    @Test func burstIsAllowedThenLimited() {
        var limiter = RateLimiter(messagesPerSecond: 10, burst: 3, strikesBeforeClose: 5)
        #expect(limiter.admit(nowMilliseconds: 1_000) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 1_000) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 1_000) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 1_000) == .limited)
    }

    @Test func refillsOverTime() {
        var limiter = RateLimiter(messagesPerSecond: 10, burst: 2, strikesBeforeClose: 100)
        #expect(limiter.admit(nowMilliseconds: 0) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 0) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 50) == .limited)  // half a token so far
        #expect(limiter.admit(nowMilliseconds: 100) == .allowed)  // one token after 100 ms
        #expect(limiter.admit(nowMilliseconds: 100) == .limited)
        // A long pause refills only up to the burst.
        #expect(limiter.admit(nowMilliseconds: 60_000) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 60_000) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 60_000) == .limited)
    }

    @Test func steadyRateAtTheLimitIsAlwaysAllowed() {
        var limiter = RateLimiter(messagesPerSecond: 20, burst: 1, strikesBeforeClose: 1)
        for step in UInt64(0)..<1_000 {
            #expect(limiter.admit(nowMilliseconds: 5_000 + step * 50) == .allowed)
        }
    }

    @Test func abusiveOnTheNthStrikeInTheWindow() {
        var limiter = RateLimiter(
            messagesPerSecond: 1, burst: 1, strikesBeforeClose: 3, strikeWindowMilliseconds: 10_000)
        #expect(limiter.admit(nowMilliseconds: 0) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 10) == .limited)  // strike 1 opens the window
        #expect(limiter.admit(nowMilliseconds: 20) == .limited)  // strike 2
        #expect(limiter.admit(nowMilliseconds: 9_000) == .allowed)  // admitted frames do not reset strikes
        #expect(limiter.admit(nowMilliseconds: 9_010) == .abusive)  // strike 3, within 10 s of strike 1
    }

    @Test func strikesAreForgottenAfterTheWindow() {
        var limiter = RateLimiter(
            messagesPerSecond: 0.001, burst: 1, strikesBeforeClose: 3, strikeWindowMilliseconds: 1_000)
        #expect(limiter.admit(nowMilliseconds: 0) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 100) == .limited)  // window 100..<1100
        #expect(limiter.admit(nowMilliseconds: 200) == .limited)
        #expect(limiter.admit(nowMilliseconds: 1_100) == .limited)  // window over: a new one, strike 1
        #expect(limiter.admit(nowMilliseconds: 1_200) == .limited)  // strike 2
        #expect(limiter.admit(nowMilliseconds: 2_099) == .abusive)  // strike 3 within 1100..<2100
    }

    @Test func singleStrikeCloses() {
        var limiter = RateLimiter(messagesPerSecond: 5, burst: 1, strikesBeforeClose: 1)
        #expect(limiter.admit(nowMilliseconds: 7) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 7) == .abusive)
    }

    @Test func clockGoingBackwardsRefillsNothing() {
        var limiter = RateLimiter(messagesPerSecond: 10, burst: 1, strikesBeforeClose: 10)
        #expect(limiter.admit(nowMilliseconds: 10_000) == .allowed)
        #expect(limiter.admit(nowMilliseconds: 1_000) == .limited)
        #expect(limiter.admit(nowMilliseconds: 10_050) == .limited)
        #expect(limiter.admit(nowMilliseconds: 10_100) == .allowed)
    }
}
