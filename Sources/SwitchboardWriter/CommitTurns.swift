import SwitchboardSystem
import Synchronization

/// The shards' partial batches take turns at the database: one shard's
/// partial batch is in flight at a time, and a shard whose partial batch is
/// due while another's commits waits for that commit, up to `limit`. Full
/// batches never wait for a turn.
///
/// Why: two backends committing small batches side by side cost the
/// database more per message than the same load committed one batch after
/// the other: at 10,000 msg/s over 500 sessions the writer's backends spent
/// about 12% less with turns (docs/writer.md, "Partial batches taking
/// turns"). A waiting shard also gathers what arrives meanwhile into its
/// next batch, so where commits are quick its batches grow. Full batches (a
/// load one backend cannot keep up with) still go side by side. Used only
/// when `writer.turn_wait_limit_us` is set: each wait is one more wake-up on
/// the core the gateway's writer threads share, and through a gateway on
/// one core the send-to-delivery p99 rose with it.
///
/// The limit bounds what one shard can cost another: a commit that waits on
/// a row lock, or a batch of many sessions on a slow server, holds the turn
/// for at most `limit`; after it the waiting shard sends anyway.
///
/// Thread-safety: every shard's thread calls it; one short mutex. A shard's
/// eventfd (its queue's wake-up) is signalled when the turn is released
/// while it waits.
final class CommitTurns: Sendable {
    enum Answer: Equatable {
        /// Send the partial batch now; it holds the turn until `release`.
        case go
        /// Wait for the turn: a release wakes the shard, and at `until` it
        /// may ask again (and then go whatever holds the turn).
        case wait(until: UInt64)
    }

    private struct State {
        /// The shard whose partial batch holds the turn, and since when.
        var holder: Int?
        var heldSince: UInt64 = 0
        /// One bit per shard that found the turn taken and has not had it since.
        var waiting: UInt64 = 0
    }

    private let state = Mutex(State())
    private let limitNanoseconds: UInt64
    private let wakeups: [EventFD]

    /// `wakeups[shard]` is the eventfd shard `shard` polls; at most 64 shards.
    init(limitNanoseconds: UInt64, wakeups: [EventFD]) {
        precondition(wakeups.count <= 64, "at most 64 shards take turns")
        self.limitNanoseconds = limitNanoseconds
        self.wakeups = wakeups
    }

    /// A shard's partial batch is due at `now`: may it go?
    func request(shard: Int, now: UInt64) -> Answer {
        let bit: UInt64 = 1 << UInt64(shard)
        return state.withLock { state in
            if let holder = state.holder, holder != shard {
                let until = state.heldSince + limitNanoseconds
                if now < until {
                    state.waiting |= bit
                    return .wait(until: until)
                }
            } else if state.holder == nil, state.waiting & bit == 0, state.waiting != 0 {
                // Free, but others waited for it: they go first, and this
                // shard's turn comes after theirs (or at the limit).
                state.waiting |= bit
                return .wait(until: now + limitNanoseconds)
            }
            state.holder = shard
            state.heldSince = now
            state.waiting &= ~bit
            return .go
        }
    }

    /// The shard's partial batch that held the turn has committed, failed or
    /// been given up: the shards waiting are woken to take it.
    func release(shard: Int) {
        let waiting = state.withLock { state -> UInt64 in
            if state.holder == shard { state.holder = nil }
            return state.waiting
        }
        wake(waiting)
    }

    /// The shard no longer has a partial batch waiting for the turn (it went
    /// as a full batch, or the shard lost its connection or stops).
    func withdraw(shard: Int) {
        let bit: UInt64 = 1 << UInt64(shard)
        let waiting = state.withLock { state -> UInt64 in
            let was = state.waiting
            state.waiting &= ~bit
            // Those that yielded to this shard need not wait for it any longer.
            return state.holder == nil && was != state.waiting ? state.waiting : 0
        }
        wake(waiting)
    }

    private func wake(_ shards: UInt64) {
        var rest = shards
        while rest != 0 {
            let shard = rest.trailingZeroBitCount
            rest &= rest - 1
            wakeups[shard].signal()
        }
    }
}
