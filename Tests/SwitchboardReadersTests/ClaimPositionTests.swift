import Testing

@testable import SwitchboardReaders

@Suite struct ClaimPositionTests {
    private func key(_ due: Int64, _ id: Int64) -> ClaimPosition.Key { .init(dueMicros: due, id: id) }

    @Test func aFullClaimMovesThePositionAndAShortOneSendsTheNextToTheFront() {
        var position = ClaimPosition(rescanSeconds: 1)
        #expect(position.start(now: 10) == nil)
        position.claimed(key(5, 9), full: true)
        #expect(position.start(now: 10.2) == key(5, 9))
        position.claimed(key(7, 1), full: true)
        #expect(position.start(now: 10.4) == key(7, 1))
        position.claimed(key(8, 1), full: false)
        #expect(position.start(now: 10.5) == nil)
    }

    @Test func atLeastEveryRescanIntervalAClaimStartsFromTheFront() {
        var position = ClaimPosition(rescanSeconds: 1)
        #expect(position.start(now: 10) == nil)
        position.claimed(key(5, 9), full: true)
        #expect(position.start(now: 10.9) == key(5, 9))
        #expect(position.start(now: 11.0) == nil)
        position.claimed(key(2, 3), full: true)
        #expect(position.start(now: 11.5) == key(2, 3), "the front scan's own last delivery")
    }

    @Test func claimsEndingOutOfOrderNeverMoveThePositionBack() {
        var position = ClaimPosition(rescanSeconds: 1)
        _ = position.start(now: 0)
        position.claimed(key(9, 1), full: true)
        position.claimed(key(5, 1), full: true)
        #expect(position.start(now: 0.1) == key(9, 1))
        position.claimed(key(9, 2), full: true)
        #expect(position.start(now: 0.2) == key(9, 2), "ties broken by id")
    }

    @Test func aFailedClaimSendsTheNextToTheFront() {
        var position = ClaimPosition(rescanSeconds: 1)
        _ = position.start(now: 0)
        position.claimed(key(9, 1), full: true)
        position.forget()
        #expect(position.start(now: 0.1) == nil)
    }
}
