/// A hashed timer wheel: one slot per tick, each connection in at most one
/// slot, O(1) to arm, re-arm and cancel. Connections carry one deadline each
/// (handshake, auth, idle or heartbeat: whichever comes next for them).
struct TimerWheel {
    static let tickMilliseconds: UInt64 = 250
    private static let slotCount = 256

    private var slots: [ContiguousArray<Connection>]
    private(set) var currentTick: UInt64
    private(set) var count = 0

    init(nowMilliseconds: UInt64) {
        slots = Array(repeating: [], count: Self.slotCount)
        currentTick = nowMilliseconds / Self.tickMilliseconds
    }

    mutating func schedule(_ connection: Connection, atMilliseconds deadline: UInt64, nowMilliseconds: UInt64) {
        cancel(connection)
        // An empty wheel is not advanced; catch up before arming.
        if count == 0 { currentTick = nowMilliseconds / Self.tickMilliseconds }
        // The first tick at or after the deadline, so a timer never fires early
        // (rounding down fired up to a tick early, and a handler that found its
        // deadline not yet reached waited for its next timer: a client that never
        // sent `hello` was closed a heartbeat late). Never in the current slot:
        // it may be mid-sweep.
        let roundedUp = deadline / Self.tickMilliseconds + (deadline % Self.tickMilliseconds == 0 ? 0 : 1)
        let tick = max(roundedUp, currentTick + 1)
        let slot = Int(tick % UInt64(Self.slotCount))
        connection.timerTick = tick
        connection.timerSlot = Int32(slot)
        connection.timerIndex = Int32(slots[slot].count)
        slots[slot].append(connection)
        count += 1
    }

    mutating func cancel(_ connection: Connection) {
        let slot = Int(connection.timerSlot)
        guard slot >= 0 else { return }
        let index = Int(connection.timerIndex)
        let last = slots[slot].count - 1
        if index != last {
            let moved = slots[slot][last]
            slots[slot][index] = moved
            moved.timerIndex = Int32(index)
        }
        slots[slot].removeLast()
        connection.timerSlot = -1
        count -= 1
    }

    /// Collects every connection whose deadline has passed, in `expired`.
    mutating func advance(to nowMilliseconds: UInt64, expired: inout [Connection]) {
        let target = nowMilliseconds / Self.tickMilliseconds
        while currentTick < target {
            currentTick += 1
            let slot = Int(currentTick % UInt64(Self.slotCount))
            var i = slots[slot].count - 1
            while i >= 0 {
                let connection = slots[slot][i]
                if connection.timerTick <= currentTick {
                    cancel(connection)
                    expired.append(connection)
                }
                i -= 1
            }
            if count == 0 { currentTick = target }
        }
    }
}
