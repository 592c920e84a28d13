import SwitchboardWebhooks
import Testing

@Suite struct QueueBackoffTests {
    @Test func doublesFromATenthOfASecondToTenSecondsAndResetsOnSuccess() {
        var backoff = QueueBackoff()
        #expect(!backoff.isWaiting(at: 0))
        var delays: [UInt64] = []
        for _ in 0..<9 {
            backoff.failed(at: 1000)
            delays.append(backoff.delayMilliseconds)
        }
        #expect(delays == [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000])
        #expect(backoff.failures == 9)
        #expect(backoff.isWaiting(at: 10_999))
        #expect(!backoff.isWaiting(at: 11_000))
        backoff.succeeded()
        #expect(backoff == QueueBackoff())
    }
}
