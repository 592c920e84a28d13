import SwitchboardSystem
import Testing

@testable import SwitchboardWriter

/// When submitting wakes the writer thread: with nothing held, and once a
/// full batch waits, told once per `take`, without a database.
@Suite struct SubmitQueueTests {
    private let metrics = WriterMetrics()

    private func submit(_ queue: SubmitQueue, _ count: Int) {
        for index in 0..<count {
            let command = WriteCommand(
                sessionID: "aaaaaaaa-0000-4000-8000-000000000001", clientMessageID: "c\(index)",
                senderRole: "visitor", senderID: "v-1", senderName: nil, kind: "text", body: "b", origin: 0,
                token: UInt64(index))
            #expect(queue.submit(command, home: 0, metrics: metrics) == .accepted)
        }
    }

    /// Whether the writer was woken since the last look (and forgets it).
    private func woken(_ queue: SubmitQueue) throws -> Bool {
        var poll = PollSet([queue.wakeup.fd])
        let ready = try poll.wait(timeoutMilliseconds: 0) > 0
        queue.drainWakeups()
        return ready
    }

    /// The writer's sleep to the nanosecond (ppoll): a deadline is never cut
    /// short, nil waits for the wake-up alone, and a wake-up ends either.
    @Test func theWriterSleepsToItsDeadlineOrUntilWoken() throws {
        let queue = SubmitQueue(capacity: 100, fullBatch: 4)
        var poll = PollSet([queue.wakeup.fd])
        for nanoseconds: UInt64 in [1_500_000, 20_000_000] {
            let start = MonotonicClock.nanoseconds()
            #expect(try poll.wait(timeoutNanoseconds: nanoseconds) == 0)
            let slept = MonotonicClock.nanoseconds() - start
            #expect(slept >= nanoseconds, "woke \(nanoseconds - slept) ns before its deadline")
        }
        submit(queue, 1)
        #expect(try poll.wait(timeoutNanoseconds: nil) == 1)
        #expect(try poll.wait(timeoutNanoseconds: 60_000_000_000) == 1)
        queue.drainWakeups()
        #expect(try poll.wait(timeoutNanoseconds: 0) == 0)
    }

    @Test func theFirstArrivalAndAFullBatchWakeTheWriterOnce() throws {
        let queue = SubmitQueue(capacity: 100, fullBatch: 4)
        submit(queue, 1)
        #expect(try woken(queue))
        submit(queue, 2)
        #expect(try !woken(queue), "a partial batch waits for the writer's own deadline or commit")
        submit(queue, 1)
        #expect(try woken(queue))
        submit(queue, 5)
        #expect(try !woken(queue), "a full batch is told once until the writer takes")
    }

    /// The writer takes seven, more arrive before it counts four of them
    /// sent: the waiting count steps from 9 to 5 and never passes 4 on the
    /// way up again. The full batch waiting must still wake it, or a writer
    /// waiting on a commit would leave it queued until that commit returns.
    @Test func aFullBatchWakesTheWriterEvenWhenItsSendsStepOverTheMark() throws {
        let queue = SubmitQueue(capacity: 100, fullBatch: 4)
        var pending: [QueuedCommand] = []
        var spare: [QueuedCommand] = []
        submit(queue, 7)
        _ = try woken(queue)
        let firstTake = queue.take(into: &pending, spare: &spare)
        #expect(firstTake == .accepting && pending.count == 7)
        submit(queue, 1)  // waiting 8: a full batch beyond what the writer holds
        #expect(try woken(queue))
        queue.markSent(4)
        submit(queue, 2)
        #expect(try !woken(queue), "already told since the last take")
        let secondTake = queue.take(into: &pending, spare: &spare)
        #expect(secondTake == .accepting && pending.count == 10)
        #expect(queue.depth == 6)
        submit(queue, 1)  // waiting 7 >= 4 again, after a take
        #expect(try woken(queue))
    }
}
