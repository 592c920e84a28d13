import Foundation
import SwitchboardCluster
import SwitchboardNATS
import SwitchboardRouting
import SwitchboardTestSupport
import Synchronization
import Testing

/// Nodes' NATS buses on a real nats-server, with short presence timings
/// (heartbeats every 100 ms, a node alone after a second without one): a node
/// alone publishes nothing, a node that connects is heard at once (and
/// hears the others within its first timeout), and one that leaves is
/// forgotten. Skipped, saying why, without nats-server.
@Suite(.enabled(if: NATSServerProcess.executable != nil, Comment(rawValue: NATSServerProcess.missingMessage)))
struct NATSBusTests {
    static let session = "aaaaaaaa-0000-4000-8000-000000000001"

    /// Every subject published under `switchboard.`, as a plain client hears it.
    final class Spy: Sendable {
        final class Subjects: Sendable {
            let list = Mutex<[String]>([])
        }
        let subjects = Subjects()
        let client: NATSClient

        init(_ server: NATSServerProcess) throws {
            let subjects = self.subjects
            client = NATSClient(
                address: try NATSAddress(parsing: server.url), name: "spy",
                onMessage: { subject, _ in subjects.list.withLock { $0.append(subject) } }, onState: { _ in })
            client.subscribe("switchboard.>")
            client.start()
        }

        func heard(_ subject: String) -> Int { subjects.list.withLock { $0.filter { $0 == subject }.count } }
    }

    /// Calls `tick` on `buses` every 20 ms (the gateway's poller does it every 100 ms).
    final class Ticker: @unchecked Sendable {
        private let stopping = Atomic<Bool>(false)
        private let buses = Mutex<[NATSBus]>([])
        private var thread: Thread?

        init() {
            thread = Thread { [self] in
                while !stopping.load(ordering: .relaxed) {
                    for bus in buses.withLock({ $0 }) { bus.tick() }
                    Thread.sleep(forTimeInterval: 0.02)
                }
            }
            thread?.start()
        }

        func add(_ bus: NATSBus) { buses.withLock { $0.append(bus) } }
        func remove(_ bus: NATSBus) { buses.withLock { $0.removeAll { $0 === bus } } }
        func stop() { stopping.store(true, ordering: .relaxed) }
    }

    func node(_ name: String, _ server: NATSServerProcess, _ heard: Heard, _ ticker: Ticker) throws -> NATSBus {
        let bus = try NATSBus(url: server.url, node: name, heartbeatMilliseconds: 100, peerTimeoutMilliseconds: 1000)
        bus.start(heard.handlers)
        bus.watch(session: Self.session)
        ticker.add(bus)
        return bus
    }

    func typing(_ text: String) -> BusEvent { .sessionFrame(sessionID: Self.session, payload: Array(text.utf8)) }

    /// A nats-server, a spy on it and a ticker for the nodes, stopped once `body` returns.
    func withServer(_ body: (NATSServerProcess, Spy, Ticker) throws -> Void) throws {
        let server = try NATSServerProcess()
        let spy = try Spy(server)
        let ticker = Ticker()
        defer {
            ticker.stop()
            spy.client.stop()
        }
        try body(server, spy, ticker)
    }

    @Test func aNodeAlonePublishesNothingAndTwoNodesHearEachOther() throws {
        try withServer { server, spy, ticker in
            try twoNodes(server, spy, ticker)
        }
    }

    private func twoNodes(_ server: NATSServerProcess, _ spy: Spy, _ ticker: Ticker) throws {
        let sessionSubject = "switchboard.s.\(Self.session)"
        let (heardByA, heardByB) = (Heard(), Heard())
        let a = try node("a", server, heardByA, ticker)
        defer { a.stop() }

        // Alone once its connection is older than the timeout with no other node heard.
        #expect(heardByA.wait(until: { a.isAlone }, seconds: 5))
        #expect(spy.heard(NATSBus.presenceSubject) >= 1, "a node says it is there as it connects")
        #expect(a.publish(typing("alone")) == false)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(spy.heard(sessionSubject) == 0, "nothing is published with nobody to hear it")

        // A second node says it is there as it connects: a hears it at once.
        let b = try node("b", server, heardByB, ticker)
        #expect(heardByA.wait(until: { !a.isAlone }, seconds: 5))
        #expect(a.publish(typing("from a")))
        #expect(heardByB.wait(until: { heardByB.framePayloads == ["from a"] }))
        // Past b's own grace period it has a peer: a's heartbeats.
        Thread.sleep(forTimeInterval: 1.2)
        #expect(!b.isAlone && !a.isAlone)
        #expect(b.publish(typing("from b")))
        #expect(heardByA.wait(until: { heardByA.framePayloads == ["from b"] }))
        // The spy is a connection of its own: it may hear them a moment after the nodes.
        #expect(heardByA.wait(until: { spy.heard(sessionSubject) == 2 }))

        // b leaves: once a has not heard it for the timeout, a is alone again.
        ticker.remove(b)
        b.stop()
        #expect(heardByA.wait(until: { a.isAlone }, seconds: 5))
        #expect(a.publish(typing("alone again")) == false)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(spy.heard(sessionSubject) == 2)
        #expect(a.droppedEvents == 0)
    }

    /// Routing's news goes on the workspace's subject: heard by a node that
    /// follows the workspace, not by one that does not.
    @Test func routingNewsReachesTheNodesThatFollowTheWorkspace() throws {
        try withServer { server, spy, ticker in try routingNews(server, spy, ticker) }
    }

    private func routingNews(_ server: NATSServerProcess, _ spy: Spy, _ ticker: Ticker) throws {
        let workspace = "0b1c2d3e-0000-4000-8000-000000000001"
        let (heardByA, heardByB, heardByC) = (Heard(), Heard(), Heard())
        let a = try node("a", server, heardByA, ticker)
        let b = try node("b", server, heardByB, ticker)
        let c = try node("c", server, heardByC, ticker)
        defer {
            for bus in [a, b, c] { bus.stop() }
        }
        b.watch(workspace: workspace)
        #expect(heardByA.wait(until: { !a.isAlone }, seconds: 5))
        Thread.sleep(forTimeInterval: 0.2)  // b's subscription reaches the server
        let presence = BusEvent.presence(
            workspaceID: workspace,
            operators: [
                OperatorPresence(
                    id: "op-ken", name: "Ken", role: "operator", status: .away, connected: true, activeSessions: 1,
                    capacity: 5, lastAssignedAt: nil)
            ], complete: false)
        let queue = BusEvent.queue(
            RoutingSnapshot(workspaceID: workspace, queue: ["s1"], queueLength: 1, availableOperators: 0))
        #expect(a.publish(presence) && a.publish(queue))
        // Only routing's events: a node's own ticks hand it hints about its watched sessions too.
        func routing(_ heard: Heard) -> [BusEvent] {
            heard.events.withLock { $0.map(\.event).filter { $0.routingWorkspaceID != nil } }
        }
        #expect(heardByB.wait(until: { routing(heardByB) == [presence, queue] }))
        #expect(heardByA.wait(until: { spy.heard("switchboard.w.\(workspace)") == 2 }))
        #expect(routing(heardByC).isEmpty, "c follows nothing of the workspace")
    }
}
