import SwitchboardSystem
import Testing

@testable import SwitchboardWriter

/// The shards' turns at committing partial batches, without a database or a
/// clock: each shard's eventfd shows whether it was woken.
@Suite struct CommitTurnsTests {
    let ms: UInt64 = 1_000_000
    let start: UInt64 = 1_000_000_000

    /// Three shards' wake-ups and turns that wait at most 5 ms.
    private func turns(_ shards: Int = 3) throws -> (CommitTurns, [EventFD]) {
        let wakeups = try (0..<shards).map { _ in try EventFD() }
        return (CommitTurns(limitNanoseconds: 5 * ms, wakeups: wakeups), wakeups)
    }

    /// Whether the shard's eventfd was signalled since the last look (and resets it).
    private func woken(_ wakeup: EventFD) throws -> Bool {
        var set = PollSet([wakeup.fd])
        let ready = try set.wait(timeoutMilliseconds: 0) > 0
        wakeup.drain()
        return ready
    }

    @Test func aShardAloneGoesAtOnceEveryTime() throws {
        let (turns, _) = try turns()
        #expect(turns.request(shard: 0, now: start) == .go)
        turns.release(shard: 0)
        #expect(turns.request(shard: 0, now: start + ms) == .go)
    }

    @Test func aSecondShardWaitsForTheCommitThenGoesBeforeTheFirstGoesAgain() throws {
        let (turns, wakeups) = try turns()
        #expect(turns.request(shard: 0, now: start) == .go)
        #expect(turns.request(shard: 1, now: start + ms) == .wait(until: start + 5 * ms))
        #expect(try !woken(wakeups[1]))

        turns.release(shard: 0)
        #expect(try woken(wakeups[1]))
        #expect(try !woken(wakeups[0]))
        // Shard 0's next batch, due at once, yields to shard 1 which waited.
        #expect(turns.request(shard: 0, now: start + 2 * ms) == .wait(until: start + 7 * ms))
        #expect(turns.request(shard: 1, now: start + 2 * ms) == .go)
        turns.release(shard: 1)
        #expect(try woken(wakeups[0]))
        #expect(turns.request(shard: 0, now: start + 4 * ms) == .go)
    }

    @Test func aCommitHeldPastTheLimitNoLongerHoldsTheOthersBack() throws {
        let (turns, _) = try turns()
        #expect(turns.request(shard: 0, now: start) == .go)
        #expect(turns.request(shard: 1, now: start + 4 * ms) == .wait(until: start + 5 * ms))
        #expect(turns.request(shard: 1, now: start + 5 * ms) == .go)
        // The late commit's release does not end the turn it no longer holds.
        turns.release(shard: 0)
        #expect(turns.request(shard: 2, now: start + 6 * ms) == .wait(until: start + 10 * ms))
        turns.release(shard: 1)
        #expect(turns.request(shard: 2, now: start + 7 * ms) == .go)
    }

    @Test func aShardThatYieldedGoesAtTheLimitIfTheOneItYieldedToNeverCame() throws {
        let (turns, _) = try turns()
        #expect(turns.request(shard: 0, now: start) == .go)
        #expect(turns.request(shard: 1, now: start) == .wait(until: start + 5 * ms))
        turns.release(shard: 0)
        // Shard 1 was woken but has not asked yet: shard 0 yields once...
        #expect(turns.request(shard: 0, now: start + ms) == .wait(until: start + 6 * ms))
        // ...and, as a waiter now itself, takes the free turn when it asks again.
        #expect(turns.request(shard: 0, now: start + 6 * ms) == .go)
    }

    @Test func aWithdrawnWaiterNoLongerMakesOthersYield() throws {
        let (turns, wakeups) = try turns()
        #expect(turns.request(shard: 0, now: start) == .go)
        #expect(turns.request(shard: 1, now: start) == .wait(until: start + 5 * ms))
        turns.release(shard: 0)
        #expect(turns.request(shard: 2, now: start + ms) == .wait(until: start + 6 * ms))
        _ = try woken(wakeups[2])
        // Shard 1's messages went as a full batch: shard 2 need not wait for it.
        turns.withdraw(shard: 1)
        #expect(try woken(wakeups[2]))
        #expect(turns.request(shard: 2, now: start + 2 * ms) == .go)
        turns.release(shard: 2)
        #expect(turns.request(shard: 0, now: start + 3 * ms) == .go)
    }

    @Test func releaseWakesEveryWaiterAndOnlyThem() throws {
        let (turns, wakeups) = try turns()
        #expect(turns.request(shard: 2, now: start) == .go)
        _ = turns.request(shard: 0, now: start)
        _ = turns.request(shard: 1, now: start)
        turns.release(shard: 2)
        #expect(try woken(wakeups[0]))
        #expect(try woken(wakeups[1]))
        #expect(try !woken(wakeups[2]))
    }
}
