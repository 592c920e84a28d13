import SwitchboardSystem
import SwitchboardTestSupport
import SwitchboardWebhookDelivery
import SwitchboardWebhooks
import Synchronization
import Testing

/// How the dispatcher paces itself: bounds, wake-ups, a queue that fails, stopping.
@Suite(.serialized) struct WebhookDispatcherFlowTests {
    static let slow: @Sendable (TestReceiver.Request, Int) -> TestReceiver.Reply = { _, _ in
        TestReceiver.Reply(body: "ok", delayMilliseconds: 150)
    }

    @Test func neverSendsMoreToOneEndpointThanItsBound() throws {
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.maxConcurrentPerEndpoint = 3
                // 12 held of one endpoint: the 15 of /busy make it skipped.
                $0.holdRounds = 4
            }, reply: Self.slow)
        defer { fixture.stop() }
        for n in 1...15 { fixture.queue.add(fixture.delivery(n, endpoint: "ep_busy", path: "/busy")) }
        for n in 16...17 { fixture.queue.add(fixture.delivery(n, endpoint: "ep_other", path: "/other")) }
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(17))
        #expect(fixture.queue.outcomes.allSatisfy { $0.succeeded })
        #expect(fixture.receiver.maxInProgress(path: "/busy") == 3)
        // The busy endpoint did not hold the other one up: it went out while /busy was at its bound.
        #expect(fixture.receiver.maxInProgress >= 4)
        // Claims skipped the endpoint at its bound.
        #expect(fixture.queue.claims.contains { $0.busy == ["ep_busy"] })
    }

    /// A claim that skipped the only endpoint with due work (at its bound)
    /// and found nothing else read every due delivery of it in the database:
    /// another is not made until that endpoint has room again (or new work is
    /// woken, or the poll comes), not after every request that ends.
    @Test func aClaimThatFoundOnlyBusyEndpointsIsNotRepeatedUntilOneHasRoom() throws {
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.maxConcurrentPerEndpoint = 2
                $0.pollIntervalMilliseconds = 1000
            },
            reply: { _, _ in TestReceiver.Reply(body: "ok", delayMilliseconds: 20) })
        defer { fixture.stop() }
        for n in 1...80 { fixture.queue.add(fixture.delivery(n, endpoint: "ep_only", path: "/only")) }
        let started = MonotonicClock.nanoseconds()
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(80))
        let claims = fixture.queue.claims
        let fruitless = claims.filter { $0.returned == 0 && !$0.busy.isEmpty }.count
        let fruitful = claims.filter { $0.returned > 0 }.count
        // Each fruitless claim follows a fruitful one, or a poll: one a second per thread (about
        // two each in a run of a second; counted from the run's length, which a loaded machine stretches).
        let polls = DispatcherFixture.settings().threads * (Int(millisecondsSince(started)) / 1000 + 1)
        #expect(
            fruitless <= fruitful + polls,
            "\(fruitless) claims found only the busy endpoint, \(fruitful) found work, \(polls) polls at most")
    }

    @Test func neverSendsMoreInAllThanTheGlobalBound() throws {
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.maxConcurrent = 5
                $0.maxConcurrentPerEndpoint = 4
                $0.holdRounds = 4
            }, reply: Self.slow)
        defer { fixture.stop() }
        for n in 1...24 {
            let endpoint = n % 4
            fixture.queue.add(fixture.delivery(n, endpoint: "ep_\(endpoint)", path: "/\(endpoint)"))
        }
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(24))
        #expect(fixture.queue.outcomes.allSatisfy { $0.succeeded })
        #expect(fixture.receiver.maxInProgress == 5)
        #expect((0..<4).allSatisfy { fixture.receiver.maxInProgress(path: "/\($0)") <= 4 })
        // Claims ask for up to a thread's share of what may be held (4 rounds of 5, over two threads).
        #expect(fixture.queue.claims.allSatisfy { $0.limit <= 10 && $0.leaseSeconds == 15 })
        #expect(fixture.queue.claims.first { $0.returned > 0 }.map { $0.returned > 5 } == true, "more than run at once")
    }

    @Test func wakeSendsAtOnceInsteadOfAtTheNextPoll() throws {
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.pollIntervalMilliseconds = 5000 })
        defer { fixture.stop() }
        try fixture.start()
        // The first claim comes at start, with nothing due; the next one would be in 5 s.
        #expect(waitUntil { fixture.queue.claims.count >= 2 })
        fixture.queue.add(fixture.delivery(1))
        ThisProcess.sleep(milliseconds: 300)
        #expect(fixture.receiver.requests.isEmpty)
        let woken = MonotonicClock.nanoseconds()
        fixture.dispatcher.wake()
        #expect(fixture.receiver.waitForRequests(1, seconds: 2))
        let elapsed = millisecondsSince(woken)
        #expect(elapsed < 500, "sent \(elapsed) ms after wake()")
    }

    /// What the node's expander hands over is sent without a claim, within
    /// the bounds: the maker is offered the free room, and of each endpoint
    /// its share less what it holds (none while it holds it all), and what it
    /// throws gives the room back.
    @Test func handedOverDeliveriesAreSentWithoutAClaimWithinTheBounds() throws {
        // Replies wait for the gate, so the attempts stay in progress until the test has looked.
        let gate = Atomic<Bool>(false)
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.maxConcurrent = 4
                $0.maxConcurrentPerEndpoint = 2
                // 8 held in all, 4 of one endpoint.
                $0.holdRounds = 2
                $0.pollIntervalMilliseconds = 60_000
            },
            reply: { _, _ in
                _ = waitUntil(seconds: 10) { gate.load(ordering: .acquiring) }
                return .ok
            })
        defer { fixture.stop() }
        defer { gate.store(true, ordering: .releasing) }
        try fixture.start()
        // Each thread's first claim (at start) reserves its room until it answers, then gives it
        // back: wait until all of it is free again (a maker that takes nothing gives it back).
        let threads = DispatcherFixture.settings().threads
        #expect(
            waitUntil(seconds: 5) {
                fixture.queue.claims.count >= threads && fixture.dispatcher.handOff { room, _ in (room.limit, []) } == 8
            })
        let offered = try fixture.dispatcher.handOff { room, leaseSeconds in
            #expect(leaseSeconds == DispatcherFixture.settings().leaseSeconds)
            #expect(room.everyEndpoint == 4, "an endpoint's share")
            return (room.room(of: "ep_1"), (1...room.room(of: "ep_1")).map { fixture.delivery($0) })
        }
        #expect(offered == 4)
        let roomFreed = Atomic<Int>(0)
        fixture.dispatcher.whenRoomFrees { roomFreed.add(1, ordering: .relaxed) }
        // Its endpoint holds its share: nothing more is offered until an attempt ends (half the room
        // is free in all, but not of every endpoint), and then the maker hears of it, once.
        let whileFull = fixture.dispatcher.handOff { room, _ in (room.limit, [DueDelivery]()) }
        #expect(whileFull == 0)
        // Asked for whatever room there is, it gets the other half, none of it for that endpoint.
        let rest = fixture.dispatcher.handOff(atLeast: 0) { room, _ in
            ([room.limit, room.room(of: "ep_1"), room.room(of: "ep_2")], [DueDelivery]())
        }
        #expect(rest == [4, 0, 4])
        // Two of them reach the endpoint and wait there; the other two wait for its bound.
        #expect(fixture.receiver.waitForRequests(2, seconds: 5))
        ThisProcess.sleep(milliseconds: 100)
        #expect(fixture.receiver.requests.count == 2, "the endpoint's bound holds while its requests wait")
        #expect(roomFreed.load(ordering: .relaxed) == 0, "no attempt has ended")
        gate.store(true, ordering: .releasing)
        #expect(fixture.queue.waitForOutcomes(4))
        #expect(roomFreed.load(ordering: .relaxed) == 1, "four attempts ended after one hand-off found no room")
        #expect(fixture.queue.outcomes.allSatisfy { $0.succeeded })
        #expect(fixture.receiver.maxInProgress(path: "/hook") == 2, "the endpoint's bound holds")
        // A maker that fails takes nothing and gives the room back.
        struct Lost: Error {}
        #expect(throws: Lost.self) {
            try fixture.dispatcher.handOff { _, _ throws(Lost) -> (Int, [DueDelivery]) in throw Lost() }
        }
        let again = fixture.dispatcher.handOff { room, _ in (room.everyEndpoint, [fixture.delivery(5)]) }
        #expect(again == 4)
        #expect(fixture.queue.waitForOutcomes(5))
        // Claims only at the start, one per thread (the poll is a minute): none for the five.
        #expect(fixture.queue.claims.allSatisfy { $0.returned == 0 })
        #expect(fixture.queue.claims.count == threads)
    }

    /// In a drain, a claim made whenever half an endpoint's share waits
    /// refilled the room as each delivery freed it, so a hand-over with a
    /// backlog waiting for that room never got it, wrote its deliveries due,
    /// and they were claimed in turn: a claim for nearly every delivery. Now
    /// such claims wait while it waits, and the room comes to it.
    @Test func aHandOverWithABacklogGetsTheRoomBeforeClaimsRefillIt() throws {
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.threads = 1
                $0.maxConcurrent = 2
                $0.maxConcurrentPerEndpoint = 2
                // 16 held at most, all of one endpoint.
                $0.holdRounds = 8
                // No poll claims within the test.
                $0.pollIntervalMilliseconds = 60_000
            },
            reply: { _, _ in TestReceiver.Reply(body: "ok", delayMilliseconds: 10) })
        defer { fixture.stop() }
        for n in 1...200 { fixture.queue.add(fixture.delivery(n)) }
        try fixture.start()
        #expect(waitUntil(seconds: 5) { fixture.queue.claims.contains { $0.returned == 16 } })
        let roomFreed = Atomic<Int>(0)
        fixture.dispatcher.whenRoomFrees { roomFreed.add(1, ordering: .releasing) }
        let refused = fixture.dispatcher.handOff(atLeast: 8, hasMore: true) { room, _ in (room.limit, []) }
        #expect(refused == 0, "the endpoint holds its share")
        let claimsBefore = fixture.queue.claims.count
        #expect(
            waitUntil(seconds: 5) { roomFreed.load(ordering: .acquiring) == 1 },
            "half the share came free for the hand-over (claims: \(fixture.queue.claims.count - claimsBefore) more)")
        let offered = fixture.dispatcher.handOff(atLeast: 8, hasMore: true) { room, _ in
            (room.everyEndpoint, (1001...1000 + room.everyEndpoint).map { fixture.delivery($0) })
        }
        #expect(offered >= 8)
        #expect(fixture.queue.claims.count == claimsBefore, "no claim took the room meanwhile")
        // Once the hand-over has nothing more to make, claims drain the rest as before.
        #expect(fixture.queue.waitForOutcomes(200 + offered))
    }

    /// A slot freed on one thread is filled by a delivery another thread
    /// holds, at once, not at that thread's next poll: the thread whose
    /// request ended, holding nothing else, wakes the one that does.
    @Test func aSlotFreedOnOneThreadIsFilledFromAnotherThreadsHeldDeliveries() throws {
        let firstMayEnd = Atomic<Bool>(false)
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.threads = 2
                // Two requests at once, one an endpoint; each thread holds two at most.
                $0.maxConcurrent = 2
                $0.maxConcurrentPerEndpoint = 1
                $0.holdRounds = 2
                // No poll comes to the rescue within the test.
                $0.pollIntervalMilliseconds = 60_000
            },
            reply: { request, _ in
                if request.path == "/first" {
                    _ = waitUntil(seconds: 10) { firstMayEnd.load(ordering: .acquiring) }
                }
                return .ok
            })
        defer { fixture.stop() }
        defer { firstMayEnd.store(true, ordering: .releasing) }
        try fixture.start()
        // Each thread's first claim answered: one still in flight holds room, and a hand-over below
        // would find none (a thread started late on a busy machine claimed after the first one).
        #expect(
            waitUntil(seconds: 5) {
                fixture.queue.claims.count >= 2 && fixture.dispatcher.handOff { room, _ in (room.limit, []) } == 4
            })
        // One thread takes both (its whole share) and runs them: it has no room left.
        #expect(
            handOver(
                [fixture.delivery(1, path: "/first"), fixture.delivery(2, endpoint: "ep_2", path: "/first")],
                to: fixture.dispatcher) == 2)
        #expect(fixture.receiver.waitForRequests(2, seconds: 5))
        // So the other thread takes this one, and holds it: its endpoint's slot is taken.
        #expect(handOver([fixture.delivery(3, path: "/third")], to: fixture.dispatcher) == 1)
        ThisProcess.sleep(milliseconds: 200)
        #expect(fixture.receiver.requests.count == 2, "the endpoint's bound holds")
        firstMayEnd.store(true, ordering: .releasing)
        let started = MonotonicClock.nanoseconds()
        #expect(fixture.receiver.waitForRequests(3, seconds: 5))
        #expect(millisecondsSince(started) < 2_000, "started when the slot freed, not at a poll")
        #expect(fixture.queue.waitForOutcomes(3))
    }

    /// Hands `deliveries` over if the room takes all of them, as the
    /// expander keeps to it (what does not fit is written due, for claims);
    /// how many went. Each is of an endpoint of its own, or the only one.
    private func handOver(_ deliveries: [DueDelivery], to dispatcher: WebhookDispatcher) -> Int {
        dispatcher.handOff { room, _ in
            let fits = deliveries.count <= room.limit && deliveries.allSatisfy { room.room(of: $0.endpointID) >= 1 }
            return fits ? (deliveries.count, deliveries) : (0, [])
        }
    }

    /// A delivery that could no longer finish within its lease is given back
    /// (due again at once), not left for its lease to run out.
    @Test func aDeliveryThatWaitedTooLongForItsEndpointIsGivenBackAndSentSoon() throws {
        // Timeout 2 s: the lease is 9 s, and a delivery may wait 2 s for its endpoint's slot. Each
        // answer takes 1.3 s: 0.7 s inside the timeout (at 0.9 s against a 1-s timeout, a CI run's
        // starved receiver made a request time out), and two of them hold the slot 0.6 s past the wait.
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.timeoutSeconds = 2
                $0.threads = 1
                $0.maxConcurrentPerEndpoint = 1
            }
        ) { _, _ in TestReceiver.Reply(body: "ok", delayMilliseconds: 1300) }
        defer { fixture.stop() }
        for n in 1...3 { fixture.queue.add(fixture.delivery(n)) }
        try fixture.start()
        // The third waits behind two requests of 1.3 s each: given back after 2 s and claimed again,
        // so all three are done (about 4 s) well before its lease (9 s) would have ended.
        #expect(fixture.queue.waitForOutcomes(3, seconds: 8))
        #expect(fixture.queue.released.contains("dlv_3"))
        #expect(fixture.queue.outcomes.allSatisfy { $0.succeeded })
        #expect(fixture.receiver.requests.count == 3, "each sent once")
    }

    /// While the writer is behind, claims take at most the busy share of a
    /// thread's time: deliveries lag, then catch up once it is not.
    @Test func whileTheWriterIsBehindClaimsTakeNoMoreThanTheirShare() throws {
        let busy = Atomic<Bool>(true)
        // One delivery per claim (one thread, one in flight), each claim 10 ms; a share of 10%: 100 ms a claim.
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.threads = 1
                $0.maxConcurrent = 1
                $0.maxConcurrentPerEndpoint = 1
                $0.holdRounds = 1
                $0.busySharePercent = 10
            }, gatewayBusy: { busy.load(ordering: .relaxed) })
        defer { fixture.stop() }
        fixture.queue.claimMilliseconds = 10
        for n in 1...40 { fixture.queue.add(fixture.delivery(n)) }
        let started = MonotonicClock.nanoseconds()
        try fixture.start()
        ThisProcess.sleep(milliseconds: 1000)
        // Unpaced, 40 claims of 10 ms and 40 local requests take about half a second; paced, one
        // claim per 100 ms of the time that really passed (a loaded machine oversleeps).
        let whileBusy = fixture.queue.outcomes.count
        let paced = Int(millisecondsSince(started)) / 100 + 3
        #expect(
            whileBusy >= 3 && whileBusy <= paced,
            "\(whileBusy) delivered while the writer was behind, \(paced) at most")
        busy.store(false, ordering: .relaxed)
        #expect(fixture.queue.waitForOutcomes(40, seconds: 3), "caught up once the writer was not behind")
        #expect(fixture.queue.outcomes.allSatisfy { $0.succeeded })
    }

    /// The database answering slowly does not stop the requests: while a
    /// claim is being answered, the thread that sent it goes on sending what
    /// it already holds. Called in line, a claim let through only the
    /// requests already started (at most the endpoint's bound, 2).
    @Test func requestsGoOnWhileAClaimIsAnswered() throws {
        let most = try Self.requestsDuringSlowCalls(
            { $0.claimMilliseconds = 150 },
            settings: {
                // 16 of the endpoint held at most: the next claim comes while 8 wait.
                $0.maxConcurrent = 2
                $0.holdRounds = 8
            }, during: \.claimInProgress)
        #expect(most > 2, "at most \(most) requests came while one claim was answered")
    }

    /// The same for records: outcomes wait for the record in flight (called
    /// in line, none came while one was answered).
    @Test func requestsGoOnWhileARecordIsAnswered() throws {
        let most = try Self.requestsDuringSlowCalls(
            { $0.recordMilliseconds = 150 }, settings: { _ in }, during: \.recordInProgress)
        #expect(most > 2, "at most \(most) requests came while one record was answered")
    }

    /// Sends 60 deliveries, two at a time, through one thread whose queue
    /// `slow` makes slow, and checks each is sent and recorded once; how many
    /// requests came while the busiest of the calls `during` numbers was
    /// being answered.
    static func requestsDuringSlowCalls(
        _ slow: (FakeDeliveryQueue) -> Void, settings: (inout WebhookDeliverySettings) -> Void,
        during call: @escaping @Sendable (FakeDeliveryQueue) -> Int?
    ) throws -> Int {
        let queue = FakeDeliveryQueue()
        let counts = Mutex<[Int: Int]>([:])
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.threads = 1
                $0.maxConcurrentPerEndpoint = 2
                settings(&$0)
            }, queue: queue,
            reply: { _, _ in
                if let number = call(queue) { counts.withLock { $0[number, default: 0] += 1 } }
                return TestReceiver.Reply(body: "ok", delayMilliseconds: 5)
            })
        defer { fixture.stop() }
        slow(queue)
        for n in 1...60 { queue.add(fixture.delivery(n)) }
        try fixture.start()
        #expect(queue.waitForOutcomes(60, seconds: 10))
        #expect(queue.outcomes.allSatisfy { $0.succeeded })
        #expect(Set(queue.outcomes.map(\.deliveryID)).count == 60, "each recorded once")
        #expect(fixture.receiver.requests.count == 60, "each sent once")
        return counts.withLock { $0.values.max() ?? 0 }
    }

    /// Stopping while a claim is being answered: the thread waits for it,
    /// and what it brought is given back unsent, not left to its lease.
    @Test func aClaimAnsweredWhileStoppingIsGivenBack() throws {
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.threads = 1 })
        defer { fixture.receiver.stop() }
        fixture.queue.claimMilliseconds = 300
        for n in 1...5 { fixture.queue.add(fixture.delivery(n)) }
        try fixture.start()
        #expect(waitUntil { fixture.queue.claimInProgress != nil })
        fixture.dispatcher.stop()
        #expect(fixture.queue.claimInProgress == nil, "stop waited for the claim")
        #expect(fixture.queue.released.sorted() == (1...5).map { "dlv_\($0)" })
        #expect(fixture.receiver.requests.isEmpty)
        #expect(fixture.queue.outcomes.isEmpty)
    }

    /// Each endpoint's deliveries start in the order they were claimed,
    /// while another endpoint's start around them: what waits is kept in
    /// order when the deliveries before it, or between it, have started.
    @Test func eachEndpointsDeliveriesStartInClaimOrder() throws {
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings {
                $0.threads = 1
                $0.maxConcurrentPerEndpoint = 1
            }, reply: { _, _ in TestReceiver.Reply(body: "ok", delayMilliseconds: 2) })
        defer { fixture.stop() }
        let start = FakeDeliveryQueue.now() - 10
        for n in 1...40 {
            let endpoint = n % 3 == 0 ? "ep_b" : "ep_a"
            fixture.queue.add(
                fixture.delivery(n, endpoint: endpoint, path: "/" + endpoint), dueAt: start + Double(n) / 100)
        }
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(40))
        for endpoint in ["ep_a", "ep_b"] {
            let sent = fixture.receiver.requests.filter { $0.path == "/" + endpoint }.map(\.body)
            let claimed = (1...40).filter { ($0 % 3 == 0) == (endpoint == "ep_b") }.map { fixture.delivery($0).body }
            #expect(sent == claimed, "\(endpoint)'s deliveries out of order")
        }
    }

    @Test func aQueueThatFailsIsAskedAgainWithBackoffAndNothingIsLost() throws {
        let fixture = try DispatcherFixture()
        defer { fixture.stop() }
        for n in 1...5 { fixture.queue.add(fixture.delivery(n)) }
        fixture.queue.failing = true
        try fixture.start()
        ThisProcess.sleep(milliseconds: 700)
        // Two threads backing off from 100 ms: a handful of calls, not one per poll (50 ms) or a busy loop.
        let failedCalls = fixture.queue.failedCalls
        #expect(failedCalls >= 2 && failedCalls <= 10, "\(failedCalls) calls")
        #expect(fixture.receiver.requests.isEmpty)
        fixture.queue.failing = false
        #expect(fixture.queue.waitForOutcomes(5, seconds: 15))
        #expect(fixture.queue.outcomes.allSatisfy { $0.succeeded })
        #expect(fixture.receiver.requests.count == 5)
        #expect(fixture.metrics.queueFailures.allSatisfy { $0 == .claim })
    }

    @Test func anOutcomeTheQueueRefusedIsRecordedLaterAndNotSentTwice() throws {
        let fixture = try DispatcherFixture()
        defer { fixture.stop() }
        fixture.queue.failRecords(3)
        fixture.queue.add(fixture.delivery(1))
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(1, seconds: 5))
        ThisProcess.sleep(milliseconds: 200)
        #expect(fixture.queue.outcomes.count == 1)
        #expect(fixture.queue.outcomes[0].succeeded)
        #expect(fixture.receiver.requests.count == 1)
        #expect(fixture.metrics.queueFailures == [.record, .record, .record])
    }

    @Test func outcomesThatWaitTogetherAreRecordedInOneCall() throws {
        // One thread, so that every outcome is that thread's to record.
        // Replies wait until all four requests have come, so that they end together.
        let arrived = Atomic<Int>(0)
        let fixture = try DispatcherFixture(
            settings: DispatcherFixture.settings { $0.threads = 1 },
            reply: { _, _ in
                arrived.add(1, ordering: .relaxed)
                _ = waitUntil { arrived.load(ordering: .relaxed) >= 4 }
                return .ok
            })
        defer { fixture.stop() }
        // The first record call fails: the thread backs off (100 ms) while the other requests end.
        fixture.queue.failRecords(1)
        for n in 1...4 { fixture.queue.add(fixture.delivery(n)) }
        try fixture.start()
        #expect(fixture.queue.waitForOutcomes(4, seconds: 5))
        #expect(fixture.receiver.requests.count == 4)
        #expect(fixture.queue.recordCalls == [4], "one call for the four outcomes waiting, not one each")
        #expect(fixture.metrics.queueFailures == [.record])
    }

    @Test func stopLetsRequestsInFlightEndRecordsThemAndJoins() throws {
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.maxConcurrentPerEndpoint = 1 }) {
            _, _ in TestReceiver.Reply(body: "done", delayMilliseconds: 600)
        }
        defer { fixture.receiver.stop() }
        for n in 1...3 { fixture.queue.add(fixture.delivery(n)) }
        try fixture.start()
        #expect(fixture.receiver.waitForRequests(1))
        let stopping = MonotonicClock.nanoseconds()
        fixture.dispatcher.stop()
        let elapsed = millisecondsSince(stopping)
        // The request in flight ended and was recorded; the two waiting were not started, and given back:
        // free for another node at once. A claim of the other thread's that was already on its way when
        // the stop began may bring them back after they were given back: it gives them back again. So
        // each is given back once for every claim that brought it, and none is left leased.
        #expect(fixture.queue.outcomes.map(\.deliveryID) == ["dlv_1"])
        #expect(Set(fixture.queue.released) == ["dlv_2", "dlv_3"])
        #expect(fixture.queue.released.sorted() == fixture.queue.claimed.filter { $0 != "dlv_1" }.sorted())
        #expect(fixture.queue.leased.isEmpty)
        #expect(fixture.queue.outcomes[0].succeeded && fixture.queue.outcomes[0].responseHead == "done")
        #expect(elapsed >= 100 && elapsed < 3000, "stop took \(elapsed) ms")
        let claims = fixture.queue.claims.count
        ThisProcess.sleep(milliseconds: 200)
        #expect(fixture.queue.claims.count == claims)
        #expect(fixture.receiver.requests.count == 1)
        fixture.dispatcher.stop()  // again: nothing left to do
        fixture.dispatcher.wake()  // after stop: harmless
    }

    /// The race behind the one above's "once for every claim": the other
    /// thread's claim reaches the queue only after the stopping thread gave
    /// its deliveries back, and brings them again. They are not started; they
    /// are given back again, and nothing is left leased.
    @Test func aClaimAnsweredAfterTheStopBeganIsGivenBackUnstarted() throws {
        // The request lasts long enough for a poll's claim to reach the queue, on a loaded machine,
        // before dlv_1 ends (its slot would then start dlv_2).
        let fixture = try DispatcherFixture(settings: DispatcherFixture.settings { $0.maxConcurrentPerEndpoint = 1 }) {
            _, _ in TestReceiver.Reply(body: "done", delayMilliseconds: 1500)
        }
        defer { fixture.receiver.stop() }
        fixture.queue.laterClaimsWaitForARelease = true
        for n in 1...3 { fixture.queue.add(fixture.delivery(n)) }
        try fixture.start()
        #expect(fixture.receiver.waitForRequests(1))
        // A claim is on its way (a poll's, every 50 ms): it waits in the queue for the release.
        #expect(waitUntil { fixture.queue.claimsWaitingForARelease > 0 })
        fixture.dispatcher.stop()
        #expect(fixture.queue.outcomes.map(\.deliveryID) == ["dlv_1"])
        let claimed = fixture.queue.claimed
        #expect(claimed.filter { $0 == "dlv_2" }.count >= 2 && claimed.filter { $0 == "dlv_3" }.count >= 2)
        #expect(fixture.queue.released.sorted() == claimed.filter { $0 != "dlv_1" }.sorted())
        #expect(fixture.queue.leased.isEmpty)
        #expect(fixture.receiver.requests.count == 1)
    }
}

/// Polls `condition` every 2 ms for at most `seconds`.
func waitUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
    while !condition() {
        if MonotonicClock.nanoseconds() > deadline { return false }
        ThisProcess.sleep(milliseconds: 2)
    }
    return true
}
