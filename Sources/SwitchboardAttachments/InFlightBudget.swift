import Synchronization

/// The bytes of uploads received and not yet stored, all uploads together
/// (`attachments.max_in_flight_bytes`): the gateway's memory for uploads is
/// bounded by it, not by the number of uploads. Any thread may reserve and
/// release; lock-free.
public final class InFlightBudget: Sendable {
    public let limit: Int
    private let used = Atomic<Int>(0)

    public init(limit: Int) {
        precondition(limit >= 0, "an in-flight budget is never negative")
        self.limit = limit
    }

    /// Bytes reserved and not yet released.
    public var inUse: Int { used.load(ordering: .relaxed) }

    /// Takes `n` bytes of the budget if that many are left; false (and nothing
    /// taken) otherwise.
    public func reserve(_ n: Int) -> Bool {
        precondition(n >= 0, "reserve a non-negative number of bytes")
        var current = used.load(ordering: .relaxed)
        while true {
            guard n <= limit - current else { return false }
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + n, successOrdering: .acquiringAndReleasing,
                failureOrdering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    /// Gives back `n` bytes an earlier `reserve` took.
    public func release(_ n: Int) {
        precondition(n >= 0, "release a non-negative number of bytes")
        let after = used.subtract(n, ordering: .acquiringAndReleasing).newValue
        precondition(after >= 0, "released more of the in-flight budget than was reserved")
    }
}
