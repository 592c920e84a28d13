import Testing

@testable import SwitchboardWriter

/// The writer's send rule, without a database or a clock.
@Suite struct BatchScheduleTests {
    let schedule = BatchSchedule(
        WriterConfiguration(databaseURL: "", maxBatchMessages: 100, maxBatchDelayMilliseconds: 20, pipelineDepth: 2))
    let ms: UInt64 = 1_000_000
    let us: UInt64 = 1_000
    let accepted: UInt64 = 1_000_000_000
    /// No batch sent yet.
    let never: UInt64 = 0

    @Test func nothingPendingSleepsUntilSomethingHappens() {
        #expect(
            !schedule.sendsNow(
                pending: 0, oldestAcceptedAt: 0, lastSentAt: never, inFlight: 0, now: accepted, stopping: false))
        #expect(
            schedule.pollTimeout(
                pending: 0, oldestAcceptedAt: 0, lastSentAt: never, inFlight: 0, now: accepted, stopDeadline: nil)
                == nil)
    }

    @Test func aPartialBatchWaitsForItsOldestCommandsDelay() {
        let now = accepted + 5 * ms + 1
        #expect(
            !schedule.sendsNow(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: now, stopping: false))
        // To the nanosecond: the shard wakes neither before the deadline nor a rounding after it.
        #expect(
            schedule.pollTimeout(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: now, stopDeadline: nil)
                == 15 * ms - 1)
    }

    @Test func aPartialBatchGoesAtItsDeadline() {
        let due = accepted + 20 * ms
        #expect(
            !schedule.sendsNow(
                pending: 99, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: due - 1, stopping: false))
        #expect(
            schedule.sendsNow(
                pending: 99, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: due, stopping: false))
        #expect(
            schedule.pollTimeout(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: due + ms,
                stopDeadline: nil) == 0)
    }

    @Test func aPartialBatchWaitsForTheCommitInFlightEvenPastItsDelay() {
        let late = accepted + 500 * ms
        #expect(
            !schedule.sendsNow(
                pending: 99, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 1, now: late, stopping: false))
        // Nothing to time: the commit's result wakes the shard.
        #expect(
            schedule.pollTimeout(
                pending: 99, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 1, now: late, stopDeadline: nil)
                == nil)
        // The commit returned: it goes at once.
        #expect(
            schedule.sendsNow(
                pending: 99, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: late, stopping: false))
    }

    @Test func byDefaultAPartialBatchGoesTheMomentTheConnectionIsIdle() {
        let eager = BatchSchedule(WriterConfiguration(databaseURL: ""))
        #expect(eager.delayNanoseconds == 0 && eager.intervalNanoseconds == 2 * ms && eager.pipelineDepth == 2)
        // The last batch went longer ago than the interval (here: never).
        #expect(
            eager.sendsNow(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: accepted,
                stopping: false))
        #expect(
            eager.pollTimeout(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: accepted - 2 * ms, inFlight: 0, now: accepted,
                stopDeadline: nil) == 0)
        #expect(
            !eager.sendsNow(
                pending: 1023, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 1, now: accepted,
                stopping: false))
        #expect(
            eager.sendsNow(
                pending: 1024, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 1, now: accepted,
                stopping: false))
    }

    @Test func withNoIntervalAPartialBatchGoesHoweverRecentlyTheLastOneWent() {
        let unpaced = BatchSchedule(WriterConfiguration(databaseURL: "", minBatchIntervalMicroseconds: 0))
        #expect(
            unpaced.sendsNow(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: accepted, inFlight: 0, now: accepted,
                stopping: false))
        #expect(
            unpaced.pollTimeout(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: accepted, inFlight: 0, now: accepted,
                stopDeadline: nil) == 0)
    }

    /// Commits faster than the interval, messages arriving all the while:
    /// a partial batch waits out the interval from the last send.
    @Test func aPartialBatchAfterARecentSendWaitsOutTheInterval() {
        let paced = BatchSchedule(WriterConfiguration(databaseURL: "", minBatchIntervalMicroseconds: 1_500))
        let sent = accepted
        let now = sent + 400 * us
        // The last batch committed (nothing in flight) and a message has waited 0.3 ms.
        #expect(
            !paced.sendsNow(
                pending: 7, oldestAcceptedAt: sent + 100 * us, lastSentAt: sent, inFlight: 0, now: now,
                stopping: false))
        #expect(
            paced.pollTimeout(
                pending: 7, oldestAcceptedAt: sent + 100 * us, lastSentAt: sent, inFlight: 0, now: now,
                stopDeadline: nil) == 1_100 * us)
        #expect(
            paced.sendsNow(
                pending: 7, oldestAcceptedAt: sent + 100 * us, lastSentAt: sent, inFlight: 0, now: sent + 1_500 * us,
                stopping: false))
    }

    /// A quiet shard (or one whose commits take longer than the interval):
    /// the interval has passed by the time a message comes, so it goes at once.
    @Test func aMessageLongAfterTheLastSendDoesNotWait() {
        let paced = BatchSchedule(WriterConfiguration(databaseURL: "", minBatchIntervalMicroseconds: 1_500))
        let now = accepted + 2 * ms
        #expect(
            paced.sendsNow(
                pending: 1, oldestAcceptedAt: now, lastSentAt: accepted, inFlight: 0, now: now, stopping: false))
        #expect(
            paced.sendsNow(pending: 1, oldestAcceptedAt: now, lastSentAt: never, inFlight: 0, now: now, stopping: false)
        )
        #expect(
            paced.pollTimeout(
                pending: 1, oldestAcceptedAt: now, lastSentAt: accepted, inFlight: 0, now: now, stopDeadline: nil)
                == 0)
    }

    @Test func theIntervalHoldsNeitherAFullBatchNorAnythingBehindTheCommitInFlight() {
        let paced = BatchSchedule(
            WriterConfiguration(databaseURL: "", maxBatchMessages: 100, minBatchIntervalMicroseconds: 1_500))
        #expect(
            paced.sendsNow(
                pending: 100, oldestAcceptedAt: accepted, lastSentAt: accepted, inFlight: 1, now: accepted,
                stopping: false))
        // In flight: the commit's result wakes the shard, as without an interval.
        #expect(
            paced.pollTimeout(
                pending: 5, oldestAcceptedAt: accepted, lastSentAt: accepted, inFlight: 1, now: accepted,
                stopDeadline: nil) == nil)
    }

    @Test func theLaterOfDelayAndIntervalDecides() {
        let both = BatchSchedule(
            WriterConfiguration(databaseURL: "", maxBatchDelayMilliseconds: 2, minBatchIntervalMicroseconds: 3_000))
        // The interval ends last: 3 ms after the last send.
        #expect(
            both.pollTimeout(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: accepted, inFlight: 0, now: accepted,
                stopDeadline: nil) == 3 * ms)
        // The delay ends last: 2 ms after the oldest command came.
        #expect(
            both.pollTimeout(
                pending: 1, oldestAcceptedAt: accepted + 2 * ms, lastSentAt: accepted, inFlight: 0,
                now: accepted + 2 * ms, stopDeadline: nil) == 2 * ms)
    }

    @Test func aFullBatchGoesAtOnce() {
        #expect(
            schedule.sendsNow(
                pending: 100, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 1, now: accepted,
                stopping: false))
    }

    @Test func aFullPipelineSendsNothingAndWaitsForAResult() {
        #expect(
            !schedule.sendsNow(
                pending: 500, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 2, now: accepted + 50 * ms,
                stopping: false))
        #expect(
            schedule.pollTimeout(
                pending: 500, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 2, now: accepted,
                stopDeadline: nil) == nil)
    }

    @Test func stoppingSendsNothingNewAndWakesAtTheStopDeadline() {
        let stop = accepted + 2_000 * ms
        #expect(
            !schedule.sendsNow(
                pending: 100, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: accepted,
                stopping: true))
        #expect(
            schedule.pollTimeout(
                pending: 100, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: accepted,
                stopDeadline: stop) == 2_000 * ms)
    }

    @Test func aFarDeadlineSleepsAMinuteAtMost() {
        let slow = BatchSchedule(
            WriterConfiguration(databaseURL: "", maxBatchDelayMilliseconds: 3_600_000))
        #expect(
            slow.pollTimeout(
                pending: 1, oldestAcceptedAt: accepted, lastSentAt: never, inFlight: 0, now: accepted,
                stopDeadline: nil) == 60_000 * ms)
    }
}
