/// Which batch the writer sends next over its connections ("lanes"). Pure,
/// so the rule is tested without a database or a clock.
///
/// Every session has a home lane (a stable hash of its id). Below the split
/// mark the lanes act as one connection: lane 0 sends one batch at a time,
/// holding the commands of every session whose home lane is idle, and the
/// next such batch gathers what arrived during its commit (`BatchSchedule`'s
/// partial batch). At the mark (`WriterConfiguration.splitMarkMessages`
/// waiting, 256 by default: one connection is falling behind) each lane
/// sends its home sessions' commands under the same schedule, side by side.
///
/// Why: two backends committing small batches side by side cost the
/// database about a quarter more per message than one backend committing
/// the same load (docs/writer.md, "One connection until it falls behind"),
/// but one backend alone stores a third of what two store when batches
/// name many sessions. This keeps the first where the load allows it and
/// the second where it needs it.
///
/// Order: a session's commands are taken in arrival order, and all of a
/// session's batches on the wire are on one lane at any time (a lane's
/// batches commit in the order sent). A batch on lane 0 that holds another
/// lane's sessions keeps that lane from sending them until it commits, and
/// a lane with a batch on the wire keeps its sessions out of lane 0's.
struct LanePlan {
    let schedule: BatchSchedule
    let lanes: Int
    /// Waiting commands (all lanes') at which each lane sends its own.
    let splitMark: Int

    init(_ configuration: WriterConfiguration) {
        schedule = BatchSchedule(configuration)
        lanes = configuration.connections
        splitMark = min(configuration.splitMarkMessages, configuration.maxBatchMessages)
    }

    /// What the writer knows when it decides; arrays indexed by lane.
    struct State {
        /// Commands waiting, by their session's home lane.
        var pending: [Int]
        /// When each home lane's oldest waiting command was accepted (ignored when none wait).
        var oldestAcceptedAt: [UInt64]
        /// Batches on the wire, by the lane they were sent on.
        var inFlight: [Int]
        /// When each lane last sent a batch (0: never).
        var lastSentAt: [UInt64]
        /// The home lanes whose sessions lane 0's batches on the wire hold.
        var heldByLaneZero = LaneSet()

        init(lanes: Int) {
            pending = Array(repeating: 0, count: lanes)
            oldestAcceptedAt = Array(repeating: 0, count: lanes)
            inFlight = Array(repeating: 0, count: lanes)
            lastSentAt = Array(repeating: 0, count: lanes)
        }

        var waiting: Int { pending.reduce(0, +) }
    }

    /// A batch to send: on `lane`, the waiting commands of `homes` (in ascending order).
    struct Batch: Equatable {
        var lane: Int
        var homes: LaneSet
    }

    /// The next batch to send now, or nil.
    func next(_ state: State, now: UInt64, stopping: Bool) -> Batch? {
        if stopping { return nil }
        if split(state) {
            for lane in 0..<lanes where mayGoAlone(lane, state) {
                if schedule.sendsNow(
                    pending: state.pending[lane], oldestAcceptedAt: state.oldestAcceptedAt[lane],
                    lastSentAt: state.lastSentAt[lane], inFlight: state.inFlight[lane], now: now, stopping: false)
                {
                    return Batch(lane: lane, homes: [lane])
                }
            }
            return nil
        }
        let homes = joinable(state)
        guard let (pending, oldest) = waitingIn(homes, state),
            schedule.sendsNow(
                pending: pending, oldestAcceptedAt: oldest, lastSentAt: state.lastSentAt[0],
                inFlight: state.inFlight[0], now: now, stopping: false)
        else { return nil }
        return Batch(lane: 0, homes: homes)
    }

    /// How long the writer may sleep (nil: until a commit returns or a
    /// command arrives): until the earliest batch that waits only for the
    /// clock is due, and until `stopDeadline` while stopping.
    func pollTimeout(_ state: State, now: UInt64, stopDeadline: UInt64?) -> UInt64? {
        if stopDeadline != nil {
            return schedule.pollTimeout(
                pending: 0, oldestAcceptedAt: 0, lastSentAt: 0, inFlight: 0, now: now, stopDeadline: stopDeadline)
        }
        var shortest: UInt64?
        func consider(pending: Int, oldest: UInt64, lane: Int) {
            guard
                let timeout = schedule.pollTimeout(
                    pending: pending, oldestAcceptedAt: oldest, lastSentAt: state.lastSentAt[lane],
                    inFlight: state.inFlight[lane], now: now, stopDeadline: nil)
            else { return }
            shortest = min(shortest ?? timeout, timeout)
        }
        if split(state) {
            for lane in 0..<lanes where mayGoAlone(lane, state) {
                consider(pending: state.pending[lane], oldest: state.oldestAcceptedAt[lane], lane: lane)
            }
        } else {
            if let (pending, oldest) = waitingIn(joinable(state), state) {
                consider(pending: pending, oldest: oldest, lane: 0)
            }
        }
        return shortest
    }

    private func split(_ state: State) -> Bool { lanes == 1 || state.waiting >= splitMark }

    /// A lane may send its own sessions unless lane 0 has some of them on the wire.
    private func mayGoAlone(_ lane: Int, _ state: State) -> Bool {
        state.pending[lane] > 0 && (lane == 0 || !state.heldByLaneZero.contains(lane))
    }

    /// The home lanes whose waiting commands may join a batch on lane 0: its
    /// own, and every other lane's that has nothing on the wire.
    private func joinable(_ state: State) -> LaneSet {
        var homes = LaneSet()
        for lane in 0..<lanes where state.pending[lane] > 0 && (lane == 0 || state.inFlight[lane] == 0) {
            homes.insert(lane)
        }
        return homes
    }

    /// How many commands of `homes` wait, and since when the oldest of them
    /// (nil when `homes` is empty).
    private func waitingIn(_ homes: LaneSet, _ state: State) -> (pending: Int, oldest: UInt64)? {
        var pending = 0
        var oldest = UInt64.max
        for home in homes {
            pending += state.pending[home]
            oldest = min(oldest, state.oldestAcceptedAt[home])
        }
        return homes.isEmpty ? nil : (pending, oldest)
    }
}
