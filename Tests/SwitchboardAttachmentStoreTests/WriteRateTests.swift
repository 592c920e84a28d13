import SwitchboardAttachmentStore
import Testing

/// The workers' shared pace: a second's worth of burst, then each byte waits its turn.
@Suite struct WriteRateTests {
    @Test func aSecondOfBurstThenBytesWaitTheirTurn() {
        let second: UInt64 = 1_000_000_000
        let rate = WriteRate(bytesPerSecond: 1000, nowNanoseconds: 0)
        #expect(rate.take(600, nowNanoseconds: 0) == 0)
        #expect(rate.take(400, nowNanoseconds: 0) == 0, "the burst is a second's worth")
        #expect(rate.take(500, nowNanoseconds: 0) == second / 2, "500 bytes at 1,000/s: half a second")
        // Half a second later the debt is paid; the next 1,000 bytes wait a second.
        #expect(rate.take(1000, nowNanoseconds: second / 2) == second)
        // Idle for ten seconds: the bucket holds one second's worth, no more.
        #expect(rate.take(1000, nowNanoseconds: 12 * second) == 0)
        #expect(rate.take(1, nowNanoseconds: 12 * second) == second / 1000)
    }

    @Test func workersSharingItWriteAtItsRateTogether() {
        let rate = WriteRate(bytesPerSecond: 10_000, nowNanoseconds: 0)
        var waited: UInt64 = 0
        // Four workers writing 5,000 bytes each, at the same instant: 10,000 pass, 10,000 wait a second.
        for _ in 0..<4 { waited = max(waited, rate.take(5000, nowNanoseconds: 0)) }
        #expect(waited == 1_000_000_000)
    }
}
