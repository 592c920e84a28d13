/// The dispatcher's bounds on requests, in all and per endpoint, as plain
/// bookkeeping (its threads share one copy behind a lock).
///
/// A delivery is *held* from its claim until its attempt ends: waiting for a
/// slot of its endpoint, or *running* (in flight). Claims ask for no more than
/// the global room, so `held` never passes `maxConcurrent` and running
/// requests with it. Per endpoint, starting a request is checked against
/// `maxPerEndpoint`; claims skip an endpoint once it holds twice that (as
/// many waiting as running), so that a busy endpoint's next deliveries are
/// claimed a batch at a time, each waiting at most one request for its slot.
public struct DispatchBounds: Sendable {
    public let maxConcurrent: Int
    public let maxPerEndpoint: Int

    public private(set) var heldCount = 0
    public private(set) var runningCount = 0
    /// Room promised to claims that have not answered yet.
    private var reserved = 0
    private var held: [String: Int] = [:]
    private var running: [String: Int] = [:]
    /// Counts finished attempts, so that a claimer can tell whether an
    /// endpoint it had to skip may have room again.
    public private(set) var finishedGeneration = 0

    /// Held deliveries of one endpoint beyond which claims skip it.
    public var maxHeldPerEndpoint: Int { 2 * maxPerEndpoint }

    public init(maxConcurrent: Int, maxPerEndpoint: Int) {
        precondition(maxConcurrent >= 1 && maxPerEndpoint >= 1, "bounds are at least 1")
        self.maxConcurrent = maxConcurrent
        self.maxPerEndpoint = maxPerEndpoint
    }

    /// What a claim may ask for: at most `wanted` (the caller's own room) and
    /// what is left in all, reserved until `claimed`; and the endpoints to skip.
    /// nil when there is no room.
    public mutating func reserveClaim(wanted: Int) -> (limit: Int, busy: Set<String>)? {
        let limit = min(wanted, maxConcurrent - heldCount - reserved)
        guard limit > 0 else { return nil }
        reserved += limit
        let busy = Set(held.filter { $0.value >= maxHeldPerEndpoint }.keys)
        return (limit, busy)
    }

    /// The claim that reserved `limit` brought deliveries of these endpoints
    /// (one entry per delivery; none when it failed).
    public mutating func claimed(endpoints: [String], reserved limit: Int) {
        precondition(endpoints.count <= limit && limit <= reserved, "a claim brought more than it reserved")
        reserved -= limit
        heldCount += endpoints.count
        for endpoint in endpoints { held[endpoint, default: 0] += 1 }
    }

    /// Takes a slot of the endpoint for a held delivery, if one is free.
    public mutating func tryStart(endpoint: String) -> Bool {
        guard running[endpoint, default: 0] < maxPerEndpoint else { return false }
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

    /// Requests in flight to `endpoint` now.
    public func running(endpoint: String) -> Int { running[endpoint, default: 0] }
}
