import Testing

@testable import SwitchboardWriter

/// Which batch goes on which connection (`LanePlan`), without a database or
/// a clock: one lane while the load allows it, each lane its own sessions
/// beyond the split mark, and never one session's batches on two lanes.
@Suite struct LanePlanTests {
    /// Two lanes, full batches of 8, split mark 2, no delay or interval, depth 2.
    private let plan = LanePlan(
        WriterConfiguration(
            databaseURL: "", maxBatchMessages: 8, maxBatchDelayMilliseconds: 0, minBatchIntervalMicroseconds: 0,
            splitMarkMessages: 2, pipelineDepth: 2, connections: 2))

    private func state(pending: [Int], inFlight: [Int] = [0, 0], heldByLaneZero: LaneSet = []) -> LanePlan.State {
        var state = LanePlan.State(lanes: 2)
        state.pending = pending
        state.oldestAcceptedAt = [10, 20]
        state.inFlight = inFlight
        state.heldByLaneZero = heldByLaneZero
        return state
    }

    @Test func theSplitMarkIsAtMostAFullBatchAndOneLaneNeverSplits() {
        #expect(plan.splitMark == 2)
        #expect(LanePlan(WriterConfiguration(databaseURL: "", connections: 2)).splitMark == 256)
        let one = LanePlan(WriterConfiguration(databaseURL: "", maxBatchMessages: 8, connections: 1))
        #expect(one.splitMark == 8)
        let small = LanePlan(WriterConfiguration(databaseURL: "", maxBatchMessages: 100, connections: 2))
        #expect(small.splitMark == 100)
    }

    /// Below the mark lane 0 takes every lane's sessions, in one batch at a time.
    @Test func belowTheMarkLaneZeroCarriesEverySessionOneBatchAtATime() {
        #expect(plan.next(state(pending: [0, 1]), now: 100, stopping: false) == .init(lane: 0, homes: [1]))
        #expect(plan.next(state(pending: [1, 0]), now: 100, stopping: false) == .init(lane: 0, homes: [0]))
        // What arrives while it commits waits for that commit, whatever its home.
        #expect(plan.next(state(pending: [0, 1], inFlight: [1, 0]), now: 100, stopping: false) == nil)
        #expect(plan.pollTimeout(state(pending: [0, 1], inFlight: [1, 0]), now: 100, stopDeadline: nil) == nil)
        #expect(plan.next(state(pending: [0, 0]), now: 100, stopping: false) == nil)
        #expect(plan.next(state(pending: [1, 0]), now: 100, stopping: true) == nil)
    }

    /// Lane 1 with a batch of its own on the wire keeps its sessions out of
    /// lane 0's batch (they would commit out of order); lane 0's go.
    @Test func aLaneWithItsOwnBatchOnTheWireKeepsItsSessionsOutOfLaneZeros() {
        #expect(plan.next(state(pending: [0, 1], inFlight: [0, 1]), now: 100, stopping: false) == nil)
        #expect(
            plan.next(state(pending: [1, 0], inFlight: [0, 1]), now: 100, stopping: false)
                == .init(lane: 0, homes: [0]))
    }

    /// At the mark each lane sends its own sessions, side by side.
    @Test func atTheMarkEachLaneSendsItsOwn() {
        var current = state(pending: [1, 1])
        #expect(plan.next(current, now: 100, stopping: false) == .init(lane: 0, homes: [0]))
        current.pending[0] = 0
        current.inFlight[0] = 1
        // Below the mark again: lane 1's session waits for lane 0's commit, as
        // with one connection, although lane 1 is idle.
        #expect(plan.next(current, now: 100, stopping: false) == nil)
        current.pending = [4, 4]
        #expect(plan.next(current, now: 100, stopping: false) == .init(lane: 1, homes: [1]))
        // A full batch goes behind another on the same lane, up to the depth.
        current.pending = [8, 0]
        #expect(plan.next(current, now: 100, stopping: false) == .init(lane: 0, homes: [0]))
        current.inFlight[0] = 2
        #expect(plan.next(current, now: 100, stopping: false) == nil)
    }

    /// Lane 0's batch on the wire holding lane 1's sessions keeps lane 1 from
    /// sending them until it commits, even beyond the mark; lane 0's own go.
    @Test func laneZerosBatchHoldingALanesSessionsHoldsThatLane() {
        let held = state(pending: [3, 3], inFlight: [1, 0], heldByLaneZero: [1])
        #expect(plan.next(held, now: 100, stopping: false) == nil)
        #expect(plan.pollTimeout(held, now: 100, stopDeadline: nil) == nil, "the commit wakes the writer")
        let full = state(pending: [8, 3], inFlight: [1, 0], heldByLaneZero: [1])
        #expect(plan.next(full, now: 100, stopping: false) == .init(lane: 0, homes: [0]))
        let committed = state(pending: [3, 3], inFlight: [0, 0])
        #expect(plan.next(committed, now: 100, stopping: false) == .init(lane: 0, homes: [0]))
    }

    /// The batch delay and the minimum interval hold a joined batch as they
    /// hold one lane's, counted from its oldest command and lane 0's last batch.
    @Test func aJoinedBatchWaitsOutTheDelayAndTheInterval() {
        let paced = LanePlan(
            WriterConfiguration(
                databaseURL: "", maxBatchMessages: 64, maxBatchDelayMilliseconds: 0,
                minBatchIntervalMicroseconds: 2, connections: 2))
        var current = state(pending: [1, 1])
        current.lastSentAt = [1_000, 0]
        #expect(paced.next(current, now: 2_500, stopping: false) == nil)
        #expect(paced.pollTimeout(current, now: 2_500, stopDeadline: nil) == 500)
        #expect(paced.next(current, now: 3_000, stopping: false) == .init(lane: 0, homes: [0, 1]))
        #expect(paced.pollTimeout(current, now: 2_500, stopDeadline: 2_600) == 100, "stopping: the deadline")
    }

    /// With one lane the plan is the schedule's: everything on lane 0.
    @Test func oneLaneIsTheSchedule() {
        let one = LanePlan(
            WriterConfiguration(
                databaseURL: "", maxBatchMessages: 4, minBatchIntervalMicroseconds: 0, pipelineDepth: 2, connections: 1)
        )
        var current = LanePlan.State(lanes: 1)
        current.pending = [2]
        #expect(one.next(current, now: 1, stopping: false) == .init(lane: 0, homes: [0]))
        current.inFlight = [1]
        #expect(one.next(current, now: 1, stopping: false) == nil)
        current.pending = [4]
        #expect(one.next(current, now: 1, stopping: false) == .init(lane: 0, homes: [0]))
    }
}

/// The writer's waiting commands kept apart by home lane, each in arrival order.
@Suite struct WaitingCommandsTests {
    private func queued(_ token: UInt64, home: Int) -> QueuedCommand {
        QueuedCommand(
            command: WriteCommand(
                sessionID: "00000000-0000-4000-8000-00000000000\(home)", clientMessageID: "c\(token)",
                senderRole: "visitor", senderID: "v", senderName: nil, kind: "text", body: "b", origin: 0,
                token: token),
            acceptedAt: token, home: home)
    }

    @Test func batchesTakeEachHomesOldestInOrderUpToTheLimit() {
        var waiting = WaitingCommands(lanes: 2)
        var arrived = [queued(1, home: 1), queued(2, home: 0), queued(3, home: 1), queued(4, home: 0)]
        waiting.add(&arrived)
        #expect(arrived.isEmpty)
        #expect(waiting.count(0) == 2 && waiting.count(1) == 2)
        #expect(waiting.oldestAcceptedAt(0) == 2 && waiting.oldestAcceptedAt(1) == 1)
        var batch: [QueuedCommand] = []
        #expect(waiting.take(from: [0, 1], upTo: 3, into: &batch) == [0, 1])
        #expect(batch.map(\.command.token) == [2, 4, 1])
        #expect(waiting.count(0) == 0 && waiting.count(1) == 1 && waiting.oldestAcceptedAt(1) == 3)
        arrived = [queued(5, home: 1), queued(6, home: 0)]
        waiting.add(&arrived)
        // A batch filled by home 0 takes nothing of home 1: only home 0 is in it.
        batch.removeAll()
        #expect(waiting.take(from: [0, 1], upTo: 1, into: &batch) == [0])
        #expect(batch.map(\.command.token) == [6])
        #expect(waiting.removeAll().map(\.command.token) == [3, 5])
        #expect(waiting.count(0) == 0 && waiting.count(1) == 0 && waiting.oldestAcceptedAt(1) == 0)
    }
}
