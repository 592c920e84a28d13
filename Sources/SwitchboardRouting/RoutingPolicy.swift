/// Picks the operator for the next queued session. A policy sees only
/// candidates with room and decides nothing else: the order of the queue,
/// capacities and loads are `RoutingPlan`'s, so a new policy (skills,
/// teams) is one small type.
public protocol RoutingPolicy: Sendable {
    /// The id of the candidate to assign the next session to, nil for none.
    /// Every candidate given has room under its capacity.
    func pick(from candidates: [RoutingCandidate]) -> String?
}

/// `least_busy`: the fewest open assigned sessions; ties to the one assigned
/// least recently (never before first), then by id, so that the choice is
/// the same on every node for the same snapshot.
public struct LeastBusyPolicy: RoutingPolicy {
    public init() {}

    public func pick(from candidates: [RoutingCandidate]) -> String? {
        candidates.min { a, b in
            (a.load, a.lastAssignedAt ?? .min, a.operatorID) < (b.load, b.lastAssignedAt ?? .min, b.operatorID)
        }?.operatorID
    }
}

/// `round_robin`: whoever was assigned least recently (never before first),
/// then by id; load counts only through capacity.
public struct RoundRobinPolicy: RoutingPolicy {
    public init() {}

    public func pick(from candidates: [RoutingCandidate]) -> String? {
        candidates.min { a, b in
            (a.lastAssignedAt ?? .min, a.operatorID) < (b.lastAssignedAt ?? .min, b.operatorID)
        }?.operatorID
    }
}

/// `manual`: never picks; operators take sessions by hand.
public struct ManualPolicy: RoutingPolicy {
    public init() {}

    public func pick(from candidates: [RoutingCandidate]) -> String? { nil }
}
