import Testing

@testable import SwitchboardLoop

@Suite struct TimerWheelTests {
    private func makeConnection(_ loop: EventLoop, fd: Int32) -> Connection {
        Connection(fd: fd, loop: loop, cipher: nil, maxOutboundBytes: 1024)
    }

    @Test func firesOnlyWhenDeadlinePasses() throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 64)
        var wheel = TimerWheel(nowMilliseconds: 10_000)
        let a = makeConnection(loop, fd: 1)
        let b = makeConnection(loop, fd: 2)
        wheel.schedule(a, atMilliseconds: 11_000, nowMilliseconds: 10_000)
        wheel.schedule(b, atMilliseconds: 13_000, nowMilliseconds: 10_000)
        var expired: [Connection] = []
        wheel.advance(to: 10_900, expired: &expired)
        #expect(expired.isEmpty)
        wheel.advance(to: 11_000, expired: &expired)
        #expect(expired.count == 1 && expired[0] === a)
        expired.removeAll()
        wheel.advance(to: 13_100, expired: &expired)
        #expect(expired.count == 1 && expired[0] === b)
        #expect(wheel.count == 0)
    }

    @Test("a deadline between ticks fires at the tick after it, never before")
    func neverFiresBeforeTheDeadline() throws {
        try expectOneTimer(at: 11_100, armedAt: 10_000, silentAt: 11_099, firedAt: 11_250)
    }

    @Test func cancelAndRescheduleKeepOneEntryPerConnection() throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 64)
        var wheel = TimerWheel(nowMilliseconds: 0)
        let connections = (0..<10).map { makeConnection(loop, fd: Int32($0 + 3)) }
        for c in connections { wheel.schedule(c, atMilliseconds: 1000, nowMilliseconds: 0) }
        wheel.cancel(connections[3])
        wheel.schedule(connections[5], atMilliseconds: 5000, nowMilliseconds: 0)
        #expect(wheel.count == 9)
        var expired: [Connection] = []
        wheel.advance(to: 1000, expired: &expired)
        #expect(expired.count == 8)
        #expect(!expired.contains { $0 === connections[3] || $0 === connections[5] })
        expired.removeAll()
        wheel.advance(to: 5000, expired: &expired)
        #expect(expired.count == 1 && expired[0] === connections[5])
    }

    @Test func deadlinesBeyondOneRevolutionWaitTheirTurn() throws {
        // 256 slots of 250 ms: 200 s is more than three revolutions.
        try expectOneTimer(at: 200_000, armedAt: 0, silentAt: 199_000, firedAt: 200_000)
    }

    /// One timer for `deadline`, armed at `now`: not expired when the wheel
    /// reaches `silent`, expired (alone) when it reaches `fired`.
    private func expectOneTimer(
        at deadline: UInt64, armedAt now: UInt64, silentAt silent: UInt64, firedAt fired: UInt64
    ) throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 64)
        var wheel = TimerWheel(nowMilliseconds: now)
        let c = makeConnection(loop, fd: 3)
        wheel.schedule(c, atMilliseconds: deadline, nowMilliseconds: now)
        var expired: [Connection] = []
        wheel.advance(to: silent, expired: &expired)
        #expect(expired.isEmpty)
        wheel.advance(to: fired, expired: &expired)
        #expect(expired.count == 1 && expired[0] === c)
    }
}
