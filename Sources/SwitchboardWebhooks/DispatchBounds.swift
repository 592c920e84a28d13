/// The dispatcher's bounds on requests, in all and per endpoint, as plain
/// bookkeeping (its threads share one copy behind a lock).
///
/// A delivery is *held* from its claim until its attempt ends: waiting for a
/// slot, or *running* (in flight). Starting a request is checked against
/// `maxConcurrent` in all and `maxPerEndpoint` for its endpoint. Claims ask
/// for no more than the room left under `maxHeld`, and skip an endpoint once
/// it holds `maxHeldPerEndpoint`; holding a few rounds of requests more than
/// run lets a busy endpoint's deliveries be claimed many at a time (a
/// claim's cost is mostly per statement), each waiting a few requests' time
/// for its slot.
public struct DispatchBounds: Sendable {
    public let maxConcurrent: Int
    public let maxPerEndpoint: Int
    /// Deliveries held at most, in all and per endpoint.
    public let maxHeld: Int
    public let maxHeldPerEndpoint: Int

    public private(set) var heldCount = 0
    public private(set) var runningCount = 0
    /// Room promised to claims that have not answered yet.
    private var reserved = 0
    private var held: [String: Int] = [:]
    private var running: [String: Int] = [:]
    /// Counts finished attempts, so that a claimer can tell whether an
    /// endpoint it had to skip may have room again.
    public private(set) var finishedGeneration = 0
    /// Room someone found too little of (`noRoom(wanted:)`) and wants to hear
    /// of once it is free (`takeRoomWanted()`); 0: nobody.
    private var roomWanted = 0
    /// What is known of a hand-over with more to make than it had room for:
    /// see `claimsLeaveRoomToHandOff`.
    private var backlogHandOff = BacklogHandOff.none
    /// Whether the last wait for room ended in room (false once a hand-over
    /// stopped waiting and took whatever there was: an endpoint stayed full).
    private var handOffWaitsEndInRoom = true

    public init(maxConcurrent: Int, maxPerEndpoint: Int, maxHeld: Int, maxHeldPerEndpoint: Int) {
        precondition(maxConcurrent >= 1 && maxPerEndpoint >= 1, "bounds are at least 1")
        precondition(
            maxHeld >= maxConcurrent && maxHeldPerEndpoint >= maxPerEndpoint, "what is held includes what runs")
        self.maxConcurrent = maxConcurrent
        self.maxPerEndpoint = maxPerEndpoint
        self.maxHeld = maxHeld
        self.maxHeldPerEndpoint = maxHeldPerEndpoint
    }

    /// What a claim may ask for: at most `wanted` (the caller's own room) and
    /// what is left to hold in all, reserved until `claimed`; and the
    /// endpoints to skip. nil when there is no room.
    public mutating func reserveClaim(wanted: Int) -> (limit: Int, busy: Set<String>)? {
        let limit = min(wanted, maxHeld - heldCount - reserved)
        guard limit > 0 else { return nil }
        reserved += limit
        return (limit, busyEndpoints)
    }

    /// The endpoints holding their share: claims skip them.
    private var busyEndpoints: Set<String> { Set(held.filter { $0.value >= maxHeldPerEndpoint }.keys) }

    /// The claim that reserved `limit` brought deliveries of these endpoints
    /// (one entry per delivery; none when it failed).
    public mutating func claimed(endpoints: [String], reserved limit: Int) {
        precondition(endpoints.count <= limit && limit <= reserved, "a claim brought more than it reserved")
        reserved -= limit
        heldCount += endpoints.count
        for endpoint in endpoints { held[endpoint, default: 0] += 1 }
    }

    /// What is free to hold now, promised to no claim.
    public var freeRoom: Int { max(0, maxHeld - heldCount - reserved) }

    /// What a hand-over may bring of every endpoint now: the free room, and
    /// no more than the fullest endpoint's share has left.
    public var handOffRoom: Int {
        HandOffRoom(limit: freeRoom, perEndpoint: maxHeldPerEndpoint, held: held).everyEndpoint
    }

    /// The endpoints whose share has less than `minimum` (capped at a share)
    /// free: any other endpoint could be handed that much now. nil while
    /// less than that is free in all: nobody could.
    public func endpointsShortOfRoom(_ minimum: Int) -> [String]? {
        let wanted = min(minimum, maxHeldPerEndpoint)
        guard freeRoom >= wanted else { return nil }
        return held.compactMap { maxHeldPerEndpoint - $0.value < wanted ? $0.key : nil }
    }

    /// Room for a hand-over, reserved until `claimed`: nil while less than
    /// `minimum` (capped at an endpoint's share) is free of every endpoint,
    /// and then `takeRoomWanted` says once when it is. With `minimum` 0,
    /// whatever room there is in all, each endpoint's share left as the
    /// hand-over's bound per endpoint: nil only when there is none.
    /// `hasMore`: the hand-over has more to make than the room it asks for
    /// (a backlog), so that claims leave the room it waits for to it.
    public mutating func reserveHandOff(atLeast minimum: Int, hasMore: Bool = false) -> HandOffRoom? {
        if minimum > 0 && handOffRoom < min(minimum, maxHeldPerEndpoint) {
            noRoom(wanted: minimum)
            backlogHandOff = hasMore ? .waiting : .none
            return nil
        }
        // Taking whatever room there is while room is still wanted: the wait ran out.
        if minimum == 0 && roomWanted > 0 { handOffWaitsEndInRoom = false }
        backlogHandOff = .none
        guard let (limit, _) = reserveClaim(wanted: maxHeld) else { return nil }
        return HandOffRoom(limit: limit, perEndpoint: maxHeldPerEndpoint, held: held)
    }

    /// Room for `wanted` (at most an endpoint's share) of every endpoint was
    /// asked for and there was less: `takeRoomWanted` says so once that much
    /// is free.
    public mutating func noRoom(wanted: Int) { roomWanted = max(1, min(wanted, maxHeldPerEndpoint)) }

    /// Whether the room asked for by `noRoom` is free now: true once per
    /// `noRoom`, when the deliveries that `finished` freed it.
    public mutating func takeRoomWanted() -> Bool {
        guard roomWanted > 0, handOffRoom >= roomWanted else { return false }
        roomWanted = 0
        handOffWaitsEndInRoom = true
        if backlogHandOff == .waiting { backlogHandOff = .told(atGeneration: finishedGeneration) }
        return true
    }

    /// Whether a claim made only to keep a busy endpoint's queue full (not a
    /// poll's, nor one woken by new due work) should wait: a hand-over with a
    /// backlog waits for room, or was told of it and has not come yet, and
    /// the waits end in room. Such a claim would take the room as it frees,
    /// the hand-over's wait would run out, and its backlog would be written
    /// due, for claims again: in a drain, a claim for nearly every delivery.
    /// Once a wait runs out (an endpoint stays full: a slow one), claims go
    /// on as before, so that a slow endpoint never holds the others back; and
    /// a hand-over told of room that does not come within an endpoint's share
    /// of finished deliveries is not waited for.
    public var claimsLeaveRoomToHandOff: Bool {
        guard handOffWaitsEndInRoom else { return false }
        switch backlogHandOff {
        case .none: return false
        case .waiting: return true
        case .told(let generation): return finishedGeneration &- generation < maxHeldPerEndpoint
        }
    }

    /// Takes a slot of the endpoint for a held delivery, if one is free, and
    /// one in all.
    public mutating func tryStart(endpoint: String) -> Bool {
        guard runningCount < maxConcurrent, running[endpoint, default: 0] < maxPerEndpoint else { return false }
        running[endpoint, default: 0] += 1
        runningCount += 1
        return true
    }

    /// A held delivery is done: its attempt ended (`wasRunning`), or it is let
    /// go unsent (its lease will run out and it comes back).
    public mutating func finished(endpoint: String, wasRunning: Bool) {
        precondition(held[endpoint, default: 0] > 0, "finished a delivery that was not held")
        held[endpoint] = held[endpoint]! == 1 ? nil : held[endpoint]! - 1
        heldCount -= 1
        if wasRunning {
            running[endpoint] = running[endpoint]! == 1 ? nil : running[endpoint]! - 1
            runningCount -= 1
        }
        finishedGeneration &+= 1
    }

    /// Whether a held delivery that is not running could start now: its
    /// endpoint has a free slot, and there is one in all. A thread whose
    /// request ended and that started what it could of its own asks this
    /// before waking the others: only they can hold such a delivery. The
    /// search stops at the first such endpoint, and every endpoint it passes
    /// has a request in flight (all it holds runs, or its slots are full): it
    /// reads at most `maxConcurrent` entries, however many endpoints are held.
    public var hasStartableWaiting: Bool {
        guard runningCount < maxConcurrent, heldCount > runningCount else { return false }
        return held.contains { endpoint, count in
            let inFlight = running[endpoint, default: 0]
            return count > inFlight && inFlight < maxPerEndpoint
        }
    }

    /// Requests in flight to `endpoint` now.
    public func running(endpoint: String) -> Int { running[endpoint, default: 0] }
}

/// A hand-over with a backlog (`reserveHandOff(atLeast:hasMore:)` true):
/// none known, waiting for room, or told of it (`takeRoomWanted`) at a
/// `finishedGeneration` and not come for it yet.
private enum BacklogHandOff: Equatable, Sendable {
    case none
    case waiting
    case told(atGeneration: Int)
}
