/// One participant's sends that got neither an ack nor an error yet, oldest
/// first, so that after a reconnect each can go out again with its own
/// `client_msg_id` (counter) and `ref` (scheduled instant): the frame is
/// rebuilt from these two, byte for byte.
///
/// Counters are consecutive (one per send), so a send's slot is its counter
/// minus the first's: answering one is an index, not a search. The array
/// keeps its capacity, and empties whenever everything is answered, which in
/// a steady run is every few sends: no allocation per message.
struct OutstandingSends {
    /// `instants[i]` is the scheduled instant of send `base + i`; 0 once answered.
    private var instants: [UInt64] = []
    private var base = 1
    /// Every slot before it is answered.
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// Records send `counter` (the participant's next) scheduled at `instant` (never 0).
    mutating func append(counter: Int, scheduled instant: UInt64) {
        if instants.isEmpty { base = counter }
        assert(counter == base + instants.count, "sends are counted one by one")
        instants.append(instant)
        count += 1
    }

    /// Answers the send whose `client_msg_id` carries `counterBits` (the
    /// counter's low 24 bits); returns its whole counter, or nil when no such
    /// send is outstanding (answered before, or never sent).
    mutating func answer(counterBits: Int) -> Int? {
        guard head < instants.count else { return nil }
        let offset = (counterBits &- (base + head)) & 0xFF_FFFF
        return answerSlot(head + offset)
    }

    /// Answers the send scheduled at `instant` (an `error` frame names its
    /// send only by `ref`); returns its counter, or nil.
    mutating func answer(scheduled instant: UInt64) -> Int? {
        guard instant != 0, let slot = instants[head...].firstIndex(of: instant) else { return nil }
        return answerSlot(slot)
    }

    /// Calls `body` with each outstanding send's counter and instant, oldest first.
    func forEach(_ body: (_ counter: Int, _ scheduled: UInt64) -> Void) {
        for slot in head..<instants.count where instants[slot] != 0 { body(base + slot, instants[slot]) }
    }

    private mutating func answerSlot(_ slot: Int) -> Int? {
        guard slot < instants.count, instants[slot] != 0 else { return nil }
        let counter = base + slot
        instants[slot] = 0
        count -= 1
        while head < instants.count && instants[head] == 0 { head += 1 }
        if head == instants.count {
            instants.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 && head * 2 >= instants.count {
            // A send left unanswered long (an ack lost with a connection)
            // must not make the array grow for the rest of the run.
            instants.removeFirst(head)
            base += head
            head = 0
        }
        return counter
    }
}
