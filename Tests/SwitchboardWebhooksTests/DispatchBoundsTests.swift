import SwitchboardWebhooks
import Testing

@Suite struct DispatchBoundsTests {
    @Test func claimsNeverAskForMoreThanTheGlobalRoom() {
        var bounds = DispatchBounds(maxConcurrent: 5, maxPerEndpoint: 2, maxHeld: 5, maxHeldPerEndpoint: 4)
        let first = bounds.reserveClaim(wanted: 3)
        #expect(first?.limit == 3)
        // A second claimer while the first is out: only what is left.
        let second = bounds.reserveClaim(wanted: 3)
        #expect(second?.limit == 2)
        let third = bounds.reserveClaim(wanted: 1)
        #expect(third == nil)
        bounds.claimed(endpoints: ["a"], reserved: 3)
        bounds.claimed(endpoints: [], reserved: 2)
        #expect(bounds.heldCount == 1)
        let fourth = bounds.reserveClaim(wanted: 10)
        #expect(fourth?.limit == 4)
    }

    /// A held delivery can start once its endpoint has a free slot and there
    /// is one in all; one whose endpoint runs its share cannot, however many
    /// are free elsewhere.
    @Test func aWaitingDeliveryIsStartableOnlyWithASlotOfItsEndpoint() {
        var bounds = DispatchBounds(maxConcurrent: 3, maxPerEndpoint: 2, maxHeld: 6, maxHeldPerEndpoint: 4)
        #expect(!bounds.hasStartableWaiting, "nothing held")
        let claim = bounds.reserveClaim(wanted: 4)
        bounds.claimed(endpoints: ["a", "a", "a", "b"], reserved: claim?.limit ?? 0)
        #expect(bounds.hasStartableWaiting)
        let twoOfA = bounds.tryStart(endpoint: "a") && bounds.tryStart(endpoint: "a")
        #expect(twoOfA && bounds.hasStartableWaiting, "\"b\" waits with a slot free")
        let b = bounds.tryStart(endpoint: "b")
        #expect(b)
        #expect(!bounds.hasStartableWaiting, "the third \"a\" waits for a slot of \"a\", and there is none in all")
        bounds.finished(endpoint: "b", wasRunning: true)
        #expect(!bounds.hasStartableWaiting, "a slot in all, none of \"a\"")
        bounds.finished(endpoint: "a", wasRunning: true)
        #expect(bounds.hasStartableWaiting, "a slot of \"a\" is free")
        let thirdOfA = bounds.tryStart(endpoint: "a")
        #expect(thirdOfA && !bounds.hasStartableWaiting, "all held run")
    }

    /// Whoever found too little room hears, once, when that much is free;
    /// not before, and not while it is promised to a claim.
    @Test func roomWantedIsToldOnceWhenThatMuchIsFree() {
        var bounds = DispatchBounds(maxConcurrent: 3, maxPerEndpoint: 3, maxHeld: 3, maxHeldPerEndpoint: 3)
        let claim = bounds.reserveClaim(wanted: 3)
        bounds.claimed(endpoints: ["a", "a", "a"], reserved: claim?.limit ?? 0)
        #expect(bounds.freeRoom == 0)
        let unasked = bounds.takeRoomWanted()
        #expect(!unasked, "nobody asked")
        bounds.noRoom(wanted: 2)
        bounds.finished(endpoint: "a", wasRunning: false)
        let one = bounds.takeRoomWanted()
        #expect(!one && bounds.freeRoom == 1, "one free, two wanted")
        bounds.finished(endpoint: "a", wasRunning: false)
        let promised = bounds.reserveClaim(wanted: 2)
        let whilePromised = bounds.takeRoomWanted()
        #expect(promised?.limit == 2 && !whilePromised, "the free room is a claim's until it answers")
        bounds.claimed(endpoints: [], reserved: promised?.limit ?? 0)
        let two = bounds.takeRoomWanted()
        let again = bounds.takeRoomWanted()
        #expect(two && !again, "once")
        bounds.noRoom(wanted: 10)
        bounds.finished(endpoint: "a", wasRunning: false)
        let capped = bounds.takeRoomWanted()
        #expect(capped, "no more than an endpoint's share is waited for")
    }

    /// A hand-over is offered the free room, and of each endpoint its share
    /// less what it holds; asked for room of every endpoint, it gets none
    /// while one endpoint holds nearly all its share, however much is free.
    @Test func aHandOverKeepsEachEndpointToItsShare() {
        var bounds = DispatchBounds(maxConcurrent: 8, maxPerEndpoint: 2, maxHeld: 8, maxHeldPerEndpoint: 4)
        let claim = bounds.reserveClaim(wanted: 4)
        bounds.claimed(endpoints: ["a", "a", "a", "b"], reserved: claim?.limit ?? 0)
        #expect(bounds.freeRoom == 4 && bounds.handOffRoom == 1)
        let refused = bounds.reserveHandOff(atLeast: 2)
        #expect(refused == nil, "\"a\" has room for one")
        let room = bounds.reserveHandOff(atLeast: 1)
        #expect(room == HandOffRoom(limit: 4, perEndpoint: 4, held: ["a": 3, "b": 1]))
        #expect(room?.room(of: "a") == 1 && room?.room(of: "b") == 3 && room?.room(of: "c") == 4)
        #expect(room?.everyEndpoint == 1)
        #expect(bounds.freeRoom == 0, "reserved until claimed")
        bounds.claimed(endpoints: ["a"], reserved: room?.limit ?? 0)
        // "a" holds its share: only whatever room there is in all is offered, none of it for "a".
        let none = bounds.reserveHandOff(atLeast: 1)
        let any = bounds.reserveHandOff(atLeast: 0)
        #expect(none == nil && any?.limit == 3 && any?.room(of: "a") == 0 && any?.everyEndpoint == 0)
        bounds.claimed(endpoints: [], reserved: any?.limit ?? 0)
        // The room wanted is told once "a" has it again.
        bounds.finished(endpoint: "b", wasRunning: false)
        let notYet = bounds.takeRoomWanted()
        bounds.finished(endpoint: "a", wasRunning: false)
        let told = bounds.takeRoomWanted()
        #expect(!notYet && told)
    }

    /// Claims made only to refill a busy endpoint leave the room to a
    /// hand-over with a backlog that waits for it, until it comes; not for a
    /// hand-over with nothing more to make, not once a wait ran out (an
    /// endpoint stays full: a slow one must not hold claims back), and not
    /// after an endpoint's share of deliveries ended without it coming.
    @Test func claimsLeaveRoomToAWaitingHandOverWithABacklogWhileWaitsEndInRoom() {
        var bounds = DispatchBounds(maxConcurrent: 4, maxPerEndpoint: 2, maxHeld: 8, maxHeldPerEndpoint: 4)
        let claim = bounds.reserveClaim(wanted: 4)
        bounds.claimed(endpoints: ["a", "a", "a", "a"], reserved: claim?.limit ?? 0)
        #expect(!bounds.claimsLeaveRoomToHandOff, "nobody waits")
        let noBacklog = bounds.reserveHandOff(atLeast: 2)
        #expect(noBacklog == nil && !bounds.claimsLeaveRoomToHandOff, "nothing more to hand over")
        let waiting = bounds.reserveHandOff(atLeast: 2, hasMore: true)
        #expect(waiting == nil && bounds.claimsLeaveRoomToHandOff)
        bounds.finished(endpoint: "a", wasRunning: false)
        bounds.finished(endpoint: "a", wasRunning: false)
        let told = bounds.takeRoomWanted()
        #expect(told && bounds.claimsLeaveRoomToHandOff, "told of the room, not come for it yet")
        let came = bounds.reserveHandOff(atLeast: 2, hasMore: true)
        #expect(came?.everyEndpoint == 2 && !bounds.claimsLeaveRoomToHandOff)
        bounds.claimed(endpoints: ["a", "a"], reserved: came?.limit ?? 0)
        // The next wait runs out: whatever room there is is taken while room is still wanted.
        let again = bounds.reserveHandOff(atLeast: 2, hasMore: true)
        #expect(again == nil && bounds.claimsLeaveRoomToHandOff)
        let ranOut = bounds.reserveHandOff(atLeast: 0, hasMore: true)
        #expect(ranOut?.limit == 4 && ranOut?.room(of: "a") == 0)
        bounds.claimed(endpoints: [], reserved: ranOut?.limit ?? 0)
        let afterRunningOut = bounds.reserveHandOff(atLeast: 2, hasMore: true)
        #expect(afterRunningOut == nil && !bounds.claimsLeaveRoomToHandOff, "\"a\" stayed full: claims go on")
        // A wait that ends in room makes claims leave it again, for an endpoint's share of ends at most.
        bounds.finished(endpoint: "a", wasRunning: false)
        bounds.finished(endpoint: "a", wasRunning: false)
        let toldAgain = bounds.takeRoomWanted()
        #expect(toldAgain && bounds.claimsLeaveRoomToHandOff)
        let other = bounds.reserveClaim(wanted: 4)
        bounds.claimed(endpoints: ["b", "b", "b", "b"], reserved: other?.limit ?? 0)
        for _ in 1...3 { bounds.finished(endpoint: "b", wasRunning: false) }
        #expect(bounds.claimsLeaveRoomToHandOff, "three of four")
        bounds.finished(endpoint: "b", wasRunning: false)
        #expect(!bounds.claimsLeaveRoomToHandOff, "the hand-over never came")
    }

    /// An endpoint is short of room when its share has less than the
    /// minimum free; an endpoint not held has its whole share. With less than
    /// that free in all, nobody has room.
    @Test func endpointsShortOfRoomAreThoseWhoseShareHasLessFree() {
        var bounds = DispatchBounds(maxConcurrent: 4, maxPerEndpoint: 2, maxHeld: 6, maxHeldPerEndpoint: 4)
        let claim = bounds.reserveClaim(wanted: 5)
        bounds.claimed(endpoints: ["a", "a", "a", "a", "b"], reserved: claim?.limit ?? 0)
        #expect(bounds.endpointsShortOfRoom(1) == ["a"], "\"a\" holds its share")
        #expect(bounds.endpointsShortOfRoom(2) == nil, "one free in all")
        bounds.finished(endpoint: "a", wasRunning: false)
        #expect(bounds.endpointsShortOfRoom(2) == ["a"], "\"a\" has one free, \"b\" three, \"c\" (held by none) four")
        #expect(bounds.endpointsShortOfRoom(1) == [], "each has one free or more")
        #expect(bounds.endpointsShortOfRoom(3) == nil, "two free in all")
        let empty = DispatchBounds(maxConcurrent: 4, maxPerEndpoint: 2, maxHeld: 6, maxHeldPerEndpoint: 4)
        #expect(empty.endpointsShortOfRoom(9) == [], "no more than a share is asked for")
    }

    @Test func skipsEndpointsHoldingTheirHeldBound() {
        var bounds = DispatchBounds(maxConcurrent: 10, maxPerEndpoint: 2, maxHeld: 10, maxHeldPerEndpoint: 4)
        let claim = bounds.reserveClaim(wanted: 7)
        bounds.claimed(endpoints: ["a", "a", "a", "b", "b", "b", "b"], reserved: claim?.limit ?? 0)
        // "a" has one free place to wait in, "b" none.
        let next = bounds.reserveClaim(wanted: 1)
        #expect(next?.busy == ["b"])
    }

    @Test func startsNoMoreThanTheEndpointsBoundEvenWhenAClaimBroughtMore() {
        var bounds = DispatchBounds(maxConcurrent: 10, maxPerEndpoint: 2, maxHeld: 10, maxHeldPerEndpoint: 4)
        let claim = bounds.reserveClaim(wanted: 10)
        bounds.claimed(endpoints: ["a", "a", "a", "b"], reserved: claim?.limit ?? 0)
        let starts = ["a", "a", "a", "b"].map { bounds.tryStart(endpoint: $0) }
        #expect(starts == [true, true, false, true])
        #expect(bounds.runningCount == 3)
        let generation = bounds.finishedGeneration
        bounds.finished(endpoint: "a", wasRunning: true)
        #expect(bounds.finishedGeneration != generation)
        #expect(bounds.running(endpoint: "a") == 1)
        let restart = bounds.tryStart(endpoint: "a")
        #expect(restart)
        #expect(bounds.heldCount == 3)
    }

    /// Held beyond what runs: claims fill the held bound, starts stop at the
    /// running bound in all as well as per endpoint.
    @Test func holdsMoreThanRunsAndStartsNoMoreThanTheGlobalBound() {
        var bounds = DispatchBounds(maxConcurrent: 3, maxPerEndpoint: 2, maxHeld: 12, maxHeldPerEndpoint: 8)
        let claim = bounds.reserveClaim(wanted: 20)
        #expect(claim?.limit == 12)
        bounds.claimed(endpoints: Array(repeating: "a", count: 8) + ["b", "c", "c", "c"], reserved: claim?.limit ?? 0)
        let full = bounds.reserveClaim(wanted: 1)
        #expect(bounds.heldCount == 12 && full == nil)
        let starts = ["a", "a", "a", "b", "c"].map { bounds.tryStart(endpoint: $0) }
        // Two of "a" (its bound), one of "b"; then the three in all are running.
        #expect(starts == [true, true, false, true, false])
        #expect(bounds.runningCount == 3)
        bounds.finished(endpoint: "b", wasRunning: true)
        let afterB = bounds.tryStart(endpoint: "c")
        #expect(afterB)
        let next = bounds.reserveClaim(wanted: 20)
        #expect(next?.limit == 1 && next?.busy == ["a"])
    }

    @Test func lettingAWaitingDeliveryGoFreesItsRoom() {
        var bounds = DispatchBounds(maxConcurrent: 2, maxPerEndpoint: 1, maxHeld: 2, maxHeldPerEndpoint: 2)
        let claim = bounds.reserveClaim(wanted: 2)
        bounds.claimed(endpoints: ["a", "a"], reserved: claim?.limit ?? 0)
        let full = bounds.reserveClaim(wanted: 1)
        #expect(full == nil)
        let started = bounds.tryStart(endpoint: "a")
        #expect(started)
        bounds.finished(endpoint: "a", wasRunning: false)
        #expect(bounds.heldCount == 1)
        #expect(bounds.runningCount == 1)
        let next = bounds.reserveClaim(wanted: 5)
        #expect(next?.limit == 1)
    }
}
