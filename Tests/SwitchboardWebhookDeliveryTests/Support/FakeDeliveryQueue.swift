import SwitchboardSystem
import SwitchboardWebhooks
import Synchronization

/// The outbox's deliveries in memory, with the contract's leases: a claimed
/// delivery is nobody else's until its lease ends, a failed one is due again
/// at its `nextAttemptAt`. `failing` makes every call throw (the database down).
final class FakeDeliveryQueue: DeliveryQueue {
    struct QueueDown: Error {}

    struct Claim: Sendable {
        var limit: Int
        var leaseSeconds: Int
        var busy: Set<String>
        var returned: Int
    }

    private struct Entry {
        var delivery: DueDelivery
        var dueAt: Double
        var leasedUntil: Double = 0
        var finished = false
    }

    private struct State {
        var entries: [Entry] = []
        var outcomes: [DeliveryOutcome] = []
        /// How many outcomes each successful `record` call brought.
        var recordCalls: [Int] = []
        var claims: [Claim] = []
        /// Ids of the deliveries claimed, in order (one per claim that brought it).
        var claimed: [String] = []
        /// Ids of the deliveries given back, in order.
        var released: [String] = []
        var failing = false
        var recordsToFail = 0
        var failedCalls = 0
        var slowClaims = SlowCalls()
        var laterClaimsWaitForARelease = false
        var claimsWaitingForARelease = 0
        var slowRecords = SlowCalls()
    }

    /// One kind of call made slow on purpose, and which of them is being answered.
    private struct SlowCalls {
        var milliseconds = 0
        var started = 0
        /// The call being answered now (numbered from 1), nil between calls.
        var inProgress: Int?
    }

    private let state = Mutex(State())

    /// A delivery due now (or at `dueAt`, seconds since the epoch).
    func add(_ delivery: DueDelivery, dueAt: Double? = nil) {
        state.withLock { $0.entries.append(Entry(delivery: delivery, dueAt: dueAt ?? Self.now())) }
    }

    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    /// How long each claim takes (a database under load).
    var claimMilliseconds: Int {
        get { state.withLock { $0.slowClaims.milliseconds } }
        set { state.withLock { $0.slowClaims.milliseconds = newValue } }
    }

    /// How long each record takes.
    var recordMilliseconds: Int {
        get { state.withLock { $0.slowRecords.milliseconds } }
        set { state.withLock { $0.slowRecords.milliseconds = newValue } }
    }

    /// The claim being answered now (numbered from 1), nil between claims.
    var claimInProgress: Int? { state.withLock { $0.slowClaims.inProgress } }
    /// The record being answered now (numbered from 1), nil between records.
    var recordInProgress: Int? { state.withLock { $0.slowRecords.inProgress } }

    /// Marks a call of the kind in progress for its delay, then runs `body`.
    private func answeringSlowly<T>(
        _ calls: WritableKeyPath<State, SlowCalls>, _ body: () throws -> T
    ) rethrows -> T {
        let delay = state.withLock { state in
            state[keyPath: calls].started += 1
            state[keyPath: calls].inProgress = state[keyPath: calls].started
            return state[keyPath: calls].milliseconds
        }
        if delay > 0 { ThisProcess.sleep(milliseconds: delay) }
        defer { state.withLock { $0[keyPath: calls].inProgress = nil } }
        return try body()
    }

    /// Every claim made after one that brought deliveries waits (5 s at
    /// most) until a release has been made: a claim already on its way when
    /// another thread gives deliveries back, which it then finds due.
    var laterClaimsWaitForARelease: Bool {
        get { state.withLock { $0.laterClaimsWaitForARelease } }
        set { state.withLock { $0.laterClaimsWaitForARelease = newValue } }
    }

    /// Claims held back by `laterClaimsWaitForARelease` now.
    var claimsWaitingForARelease: Int { state.withLock { $0.claimsWaitingForARelease } }

    /// The next `count` record calls throw (the claims still work).
    func failRecords(_ count: Int) { state.withLock { $0.recordsToFail = count } }

    var outcomes: [DeliveryOutcome] { state.withLock { $0.outcomes } }
    var claims: [Claim] { state.withLock { $0.claims } }
    var recordCalls: [Int] { state.withLock { $0.recordCalls } }
    var claimed: [String] { state.withLock { $0.claimed } }
    var released: [String] { state.withLock { $0.released } }
    /// Ids of the deliveries whose lease has not ended: nobody else may claim them yet.
    var leased: [String] {
        let now = Self.now()
        return state.withLock { $0.entries.filter { !$0.finished && $0.leasedUntil > now }.map(\.delivery.id) }
    }
    var failedCalls: Int { state.withLock { $0.failedCalls } }

    /// Waits until `count` outcomes are recorded, at most `seconds`.
    func waitForOutcomes(_ count: Int, seconds: Double = 10) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while outcomes.count < count {
            if MonotonicClock.nanoseconds() > deadline { return false }
            ThisProcess.sleep(milliseconds: 2)
        }
        return true
    }

    func claim(limit: Int, leaseSeconds: Int, skipping busy: Set<String>) throws -> [DueDelivery] {
        let waits = state.withLock { state in
            let waits = state.laterClaimsWaitForARelease && state.claims.contains { $0.returned > 0 }
            if waits { state.claimsWaitingForARelease += 1 }
            return waits
        }
        if waits {
            _ = waitUntil(seconds: 5) { !released.isEmpty }
            state.withLock { $0.claimsWaitingForARelease -= 1 }
        }
        return try answeringSlowly(\.slowClaims) {
            try claimNow(limit: limit, leaseSeconds: leaseSeconds, skipping: busy)
        }
    }

    private func claimNow(limit: Int, leaseSeconds: Int, skipping busy: Set<String>) throws -> [DueDelivery] {
        try state.withLock { state in
            guard !state.failing else {
                state.failedCalls += 1
                throw QueueDown()
            }
            let now = Self.now()
            var claimed: [DueDelivery] = []
            for index in state.entries.indices.sorted(by: { state.entries[$0].dueAt < state.entries[$1].dueAt }) {
                guard claimed.count < limit else { break }
                let entry = state.entries[index]
                guard !entry.finished, entry.dueAt <= now, entry.leasedUntil <= now,
                    !busy.contains(entry.delivery.endpointID)
                else { continue }
                state.entries[index].leasedUntil = now + Double(leaseSeconds)
                claimed.append(entry.delivery)
            }
            state.claims.append(Claim(limit: limit, leaseSeconds: leaseSeconds, busy: busy, returned: claimed.count))
            state.claimed += claimed.map(\.id)
            return claimed
        }
    }

    func record(_ outcomes: [DeliveryOutcome]) throws {
        try answeringSlowly(\.slowRecords) { try recordNow(outcomes) }
    }

    private func recordNow(_ outcomes: [DeliveryOutcome]) throws {
        try state.withLock { state in
            guard !state.failing, state.recordsToFail == 0 else {
                state.recordsToFail = max(0, state.recordsToFail - 1)
                state.failedCalls += 1
                throw QueueDown()
            }
            state.recordCalls.append(outcomes.count)
            for outcome in outcomes {
                state.outcomes.append(outcome)
                guard let index = state.entries.firstIndex(where: { $0.delivery.id == outcome.deliveryID }) else {
                    continue
                }
                state.entries[index].leasedUntil = 0
                state.entries[index].delivery.attempt += 1
                if let next = outcome.nextAttemptAt {
                    state.entries[index].dueAt = next
                } else {
                    state.entries[index].finished = true
                }
            }
        }
    }

    /// Attempts are counted when recorded here, so a delivery given back
    /// keeps its count; its lease ends (if it has not already).
    func release(_ deliveries: [DueDelivery]) throws {
        try state.withLock { state in
            guard !state.failing else {
                state.failedCalls += 1
                throw QueueDown()
            }
            let now = Self.now()
            for delivery in deliveries {
                state.released.append(delivery.id)
                guard let index = state.entries.firstIndex(where: { $0.delivery.id == delivery.id }),
                    state.entries[index].leasedUntil > now
                else { continue }
                state.entries[index].leasedUntil = 0
            }
        }
    }

    static func now() -> Double { Double(UnixClock.nowMicroseconds()) / 1_000_000 }
}
