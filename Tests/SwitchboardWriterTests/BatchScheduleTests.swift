import Testing

@testable import SwitchboardWriter

/// The writer's send rule, without a database or a clock.
@Suite struct BatchScheduleTests {
    let schedule = BatchSchedule(
        WriterConfiguration(databaseURL: "", maxBatchMessages: 100, maxBatchDelayMilliseconds: 20, pipelineDepth: 2))
    let ms: UInt64 = 1_000_000
    let accepted: UInt64 = 1_000_000_000

    @Test func nothingPendingSleepsUntilSomethingHappens() {
        #expect(!schedule.sendsNow(pending: 0, oldestAcceptedAt: 0, inFlight: 0, now: accepted, stopping: false))
        #expect(
            schedule.pollTimeout(pending: 0, oldestAcceptedAt: 0, inFlight: 0, now: accepted, stopDeadline: nil) == -1)
    }

    @Test func aPartialBatchWaitsForItsOldestCommandsDelay() {
        let now = accepted + 5 * ms + 1
        #expect(!schedule.sendsNow(pending: 1, oldestAcceptedAt: accepted, inFlight: 0, now: now, stopping: false))
        // 14.999999 ms left: rounded up, so the shard never wakes before the deadline.
        #expect(
            schedule.pollTimeout(pending: 1, oldestAcceptedAt: accepted, inFlight: 0, now: now, stopDeadline: nil) == 15
        )
    }

    @Test func aPartialBatchGoesAtItsDeadline() {
        let due = accepted + 20 * ms
        #expect(!schedule.sendsNow(pending: 99, oldestAcceptedAt: accepted, inFlight: 0, now: due - 1, stopping: false))
        #expect(schedule.sendsNow(pending: 99, oldestAcceptedAt: accepted, inFlight: 0, now: due, stopping: false))
        #expect(
            schedule.pollTimeout(pending: 1, oldestAcceptedAt: accepted, inFlight: 0, now: due + ms, stopDeadline: nil)
                == 0)
    }

    @Test func aPartialBatchWaitsForTheCommitInFlightEvenPastItsDelay() {
        let late = accepted + 500 * ms
        #expect(!schedule.sendsNow(pending: 99, oldestAcceptedAt: accepted, inFlight: 1, now: late, stopping: false))
        // Nothing to time: the commit's result wakes the shard.
        #expect(
            schedule.pollTimeout(pending: 99, oldestAcceptedAt: accepted, inFlight: 1, now: late, stopDeadline: nil)
                == -1)
        // The commit returned: it goes at once.
        #expect(schedule.sendsNow(pending: 99, oldestAcceptedAt: accepted, inFlight: 0, now: late, stopping: false))
    }

    @Test func withNoDelayAPartialBatchGoesTheMomentTheConnectionIsIdle() {
        let eager = BatchSchedule(WriterConfiguration(databaseURL: ""))
        #expect(eager.delayNanoseconds == 0 && eager.pipelineDepth == 2)
        #expect(eager.sendsNow(pending: 1, oldestAcceptedAt: accepted, inFlight: 0, now: accepted, stopping: false))
        #expect(
            eager.pollTimeout(pending: 1, oldestAcceptedAt: accepted, inFlight: 0, now: accepted, stopDeadline: nil)
                == 0)
        #expect(!eager.sendsNow(pending: 1023, oldestAcceptedAt: accepted, inFlight: 1, now: accepted, stopping: false))
        #expect(eager.sendsNow(pending: 1024, oldestAcceptedAt: accepted, inFlight: 1, now: accepted, stopping: false))
    }

    @Test func aFullBatchGoesAtOnce() {
        #expect(
            schedule.sendsNow(pending: 100, oldestAcceptedAt: accepted, inFlight: 1, now: accepted, stopping: false))
    }

    @Test func aFullPipelineSendsNothingAndWaitsForAResult() {
        #expect(
            !schedule.sendsNow(
                pending: 500, oldestAcceptedAt: accepted, inFlight: 2, now: accepted + 50 * ms, stopping: false))
        #expect(
            schedule.pollTimeout(
                pending: 500, oldestAcceptedAt: accepted, inFlight: 2, now: accepted, stopDeadline: nil) == -1)
    }

    @Test func stoppingSendsNothingNewAndWakesAtTheStopDeadline() {
        let stop = accepted + 2_000 * ms
        #expect(
            !schedule.sendsNow(pending: 100, oldestAcceptedAt: accepted, inFlight: 0, now: accepted, stopping: true))
        #expect(
            schedule.pollTimeout(
                pending: 100, oldestAcceptedAt: accepted, inFlight: 0, now: accepted, stopDeadline: stop) == 2_000)
    }

    @Test func aFarDeadlineSleepsAMinuteAtMost() {
        let slow = BatchSchedule(
            WriterConfiguration(databaseURL: "", maxBatchDelayMilliseconds: 3_600_000))
        #expect(
            slow.pollTimeout(pending: 1, oldestAcceptedAt: accepted, inFlight: 0, now: accepted, stopDeadline: nil)
                == 60_000)
    }
}
