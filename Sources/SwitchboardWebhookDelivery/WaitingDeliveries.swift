/// The deliveries a dispatcher thread holds and has not started, in the order
/// they came (claims and hand-overs), and the pass that starts what has a
/// slot and gives back what waited too long.
///
/// A pass runs after every request that ends, and a thread holds up to its
/// share of `max_held` (hundreds), nearly all of one busy endpoint whose slots
/// are all taken again after the one or two it starts. Walking every entry
/// to find that out (a comparison of endpoint ids and a move each) was about
/// 4% of the gateway's samples in a capacity drain (`perf`, 2026-11-30; 0.7%
/// after). So the pass stops as soon as
/// every endpoint still waiting has been found without a slot in it, unless
/// a lease may be running out, which only looking at every entry can tell: it
/// keeps how many entries each endpoint has and a bound below which no lease
/// ends.
struct WaitingDeliveries {
    /// What a pass does with an entry whose endpoint may have a slot.
    enum Start {
        /// It was started (or ended at once): it leaves.
        case started
        /// Its endpoint (or the dispatcher) has no slot: it stays, and so do
        /// the endpoint's later entries in this pass.
        case noSlot
    }

    /// The entries, oldest first.
    var entries: ArraySlice<HeldDelivery> { storage[head...] }
    /// Entries before `head` have left: those a pass started at the front are
    /// cut off by moving `head`, and the array is shifted down only once
    /// half of it has left (a pass starts one or two at the front of
    /// hundreds, and shifting all the others down after each pass moved
    /// hundreds for one or two). Until then their copies stay in memory:
    /// never more of them than of the entries held.
    private var storage: [HeldDelivery] = []
    private var head = 0
    private var perEndpoint: [String: Int] = [:]
    /// No entry's lease ends before this: lowered by every entry that comes,
    /// set to the earliest of those that stay by a pass over all of them.
    private var leasesEndNoSoonerThan: UInt64 = .max

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }
    /// How many entries the last pass looked at: what it cost.
    private(set) var lookedAtByLastPass = 0

    mutating func append(contentsOf held: [HeldDelivery]) {
        for entry in held {
            perEndpoint[entry.delivery.endpointID, default: 0] += 1
            leasesEndNoSoonerThan = min(leasesEndNoSoonerThan, entry.leaseEndsAt)
        }
        storage += held
    }

    /// Every entry, in order; none left.
    mutating func removeAll() -> [HeldDelivery] {
        defer {
            storage.removeAll()
            head = 0
            perEndpoint.removeAll()
            leasesEndNoSoonerThan = .max
        }
        return Array(entries)
    }

    /// Offers each entry, in order, to `start`, except those whose lease ends
    /// before `tooLateBefore` (returned, for the caller to give back) and
    /// those of an endpoint found without a slot earlier in the pass. What
    /// stays keeps its order.
    mutating func pass(tooLateBefore: UInt64, _ start: (HeldDelivery) -> Start) -> [HeldDelivery] {
        lookedAtByLastPass = 0
        guard !isEmpty else { return [] }
        let mayBeTooLate = leasesEndNoSoonerThan < tooLateBefore
        var tooLate: [HeldDelivery] = []
        var withoutSlot: [String] = []
        var earliestKept = UInt64.max
        // What stays is moved down over what left after it; what left before
        // anything stayed (with one busy endpoint, the one or two started)
        // is cut off the front by moving the head, not every later entry swapped.
        var leading = true
        var leadingGone = 0
        var kept = head
        var index = head
        while index < storage.count {
            if !mayBeTooLate && withoutSlot.count == perEndpoint.count { break }
            let endpoint = storage[index].delivery.endpointID
            var gone = false
            if storage[index].leaseEndsAt < tooLateBefore {
                tooLate.append(storage[index])
                gone = true
            } else if !withoutSlot.contains(endpoint) {
                switch start(storage[index]) {
                case .started: gone = true
                case .noSlot: withoutSlot.append(endpoint)
                }
            }
            if gone {
                leave(endpoint)
                if leading {
                    leadingGone += 1
                    kept += 1
                }
            } else {
                leading = false
                earliestKept = min(earliestKept, storage[index].leaseEndsAt)
                storage.swapAt(kept, index)
                kept += 1
            }
            index += 1
        }
        lookedAtByLastPass = index - head
        if index == storage.count {
            storage.removeLast(storage.count - kept)
            leasesEndNoSoonerThan = earliestKept
        } else {
            // Stopped early: the entries not looked at stay where they are, after those kept.
            storage.removeSubrange(kept..<index)
        }
        head += leadingGone
        if head > 0 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return tooLate
    }

    private mutating func leave(_ endpoint: String) {
        guard let left = perEndpoint[endpoint] else { return }
        if left <= 1 { perEndpoint[endpoint] = nil } else { perEndpoint[endpoint] = left - 1 }
    }
}
