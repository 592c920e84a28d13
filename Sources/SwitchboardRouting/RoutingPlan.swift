/// One session given to one operator by a routing pass.
public struct RoutingAssignment: Sendable, Equatable {
    public let sessionID: String
    public let operatorID: String
    /// The operator's new `last_assigned_at` (microseconds since the epoch):
    /// a later assignment of the pass has a later stamp.
    public let assignedAt: Int64

    public init(sessionID: String, operatorID: String, assignedAt: Int64) {
        self.sessionID = sessionID
        self.operatorID = operatorID
        self.assignedAt = assignedAt
    }
}

/// What one routing pass decides from one snapshot of a workspace: the
/// queue, oldest first, each session in turn to the operator the policy
/// picks among those with room, loads counted up as it goes. So no
/// operator goes past its capacity, no session is given twice, and a
/// session is only passed over when nobody is left to take it (FIFO by
/// `waiting_since`). Pure: the pass applies the result in one statement.
public struct RoutingPlan: Sendable, Equatable {
    /// In queue order.
    public private(set) var assignments: [RoutingAssignment] = []
    /// The sessions left in the queue, in queue order.
    public private(set) var waiting: [QueuedSession] = []
    /// Every candidate as the plan leaves it (loads and last assignments
    /// counted in), once each, in the order given.
    public private(set) var candidates: [RoutingCandidate] = []

    /// `now` is the database's clock (microseconds since the epoch). A
    /// candidate named twice counts once (its first entry); a session queued
    /// twice is given once.
    public init(queue: [QueuedSession], candidates given: [RoutingCandidate], policy: any RoutingPolicy, now: Int64) {
        var position: [String: Int] = [:]
        for candidate in given where position[candidate.operatorID] == nil {
            position[candidate.operatorID] = candidates.count
            candidates.append(candidate)
        }
        // Those with room, kept up to date as sessions are given (what the policy sees).
        var open = candidates.filter(\.hasRoom)
        // Stamps follow every earlier one, even one a node with a faster clock
        // wrote: the order of assignment survives from pass to pass.
        var stamp = max(now, (candidates.compactMap(\.lastAssignedAt).max() ?? now - 1) + 1)
        var seen = Set<String>()
        // Once a session finds nobody, every later one waits too (first come, first served).
        var stopped = false
        for session in queue.sorted(by: { ($0.waitingSince, $0.id) < ($1.waitingSince, $1.id) })
        where seen.insert(session.id).inserted {
            guard !stopped, !open.isEmpty, let picked = policy.pick(from: open),
                let choice = open.firstIndex(where: { $0.operatorID == picked })
            else {
                stopped = true
                waiting.append(session)
                continue
            }
            open[choice].load += 1
            open[choice].lastAssignedAt = stamp
            candidates[position[picked]!] = open[choice]
            assignments.append(RoutingAssignment(sessionID: session.id, operatorID: picked, assignedAt: stamp))
            stamp += 1
            if !open[choice].hasRoom { open.remove(at: choice) }
        }
    }
}
