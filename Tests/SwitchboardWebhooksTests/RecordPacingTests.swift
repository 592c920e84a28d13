import SwitchboardWebhooks
import Testing

@Suite struct RecordPacingTests {
    /// Outcomes wait for others, up to a count or an age; a thread with
    /// nothing else in hand records at once, and nothing is never due.
    @Test func outcomesWaitForOthersUpToACountOrAnAgeUnlessNothingElseIsInHand() {
        let ended: UInt64 = 1_000
        #expect(!RecordPacing.isDue(waiting: 0, oldestEndedAt: ended, now: ended + 1_000, idle: true))
        #expect(!RecordPacing.isDue(waiting: 5, oldestEndedAt: ended, now: ended + 19, idle: false))
        #expect(RecordPacing.isDue(waiting: 5, oldestEndedAt: ended, now: ended + 20, idle: false))
        #expect(RecordPacing.isDue(waiting: RecordPacing.atOnce, oldestEndedAt: ended, now: ended, idle: false))
        #expect(!RecordPacing.isDue(waiting: RecordPacing.atOnce - 1, oldestEndedAt: ended, now: ended, idle: false))
        #expect(RecordPacing.isDue(waiting: 1, oldestEndedAt: ended, now: ended, idle: true))
        #expect(RecordPacing.dueAt(oldestEndedAt: ended) == ended + RecordPacing.withinMilliseconds)
    }
}
