import SwitchboardWebhooks
import Testing

@Suite struct RetryScheduleTests {
    @Test func followsTheProtocolsScheduleThenGivesUp() {
        let schedule = RetrySchedule()
        let delays = (1...8).map { schedule.delay(afterFailedAttempt: $0) }
        #expect(delays == [5, 300, 1800, 7200, 18000, 36000, 36000, nil])
        #expect(RetrySchedule.maximumAttempts == 8)
        #expect(schedule.nextAttemptAt(afterFailedAttempt: 1, failedAt: 1000) == 1005)
        #expect(schedule.nextAttemptAt(afterFailedAttempt: 8, failedAt: 1000) == nil)
        #expect(schedule.nextAttemptAt(afterFailedAttempt: 9, failedAt: 1000) == nil)
    }

    @Test func scaleShrinksEveryDelayButNotTheirNumber() {
        let schedule = RetrySchedule(scale: 0.001)
        #expect(schedule.delay(afterFailedAttempt: 1) == 0.005)
        #expect(schedule.delay(afterFailedAttempt: 7) == 36)
        #expect(schedule.delay(afterFailedAttempt: 8) == nil)
    }
}
