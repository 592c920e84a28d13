import Foundation
import SwitchboardChat
import SwitchboardCluster
import SwitchboardPostgres
import SwitchboardRouting
import SwitchboardTestSupport
import Synchronization
import Testing

/// Two nodes' PostgreSQL buses on one test database: what one publishes the
/// other receives, in order, never its own; a lost connection comes back
/// and says so (a new generation) so the gateway can catch up.
@Suite struct PostgresBusTests {
    /// Nodes "a" and "b", each with its bus started, on a test database of
    /// their own; stopped and dropped once `body` returns.
    private struct TwoNodes {
        let database: TestDatabase
        let a: PostgresBus
        let b: PostgresBus
        let heardByA = Heard()
        let heardByB = Heard()
    }

    private func withTwoNodes(_ body: (TwoNodes) throws -> Void) throws {
        let database = try TestDatabase(migrated: false)
        defer { database.drop() }
        let nodes = TwoNodes(
            database: database,
            a: try PostgresBus(databaseURL: database.url, channel: "switchboard_test", node: "a"),
            b: try PostgresBus(databaseURL: database.url, channel: "switchboard_test", node: "b"))
        nodes.a.start(nodes.heardByA.handlers)
        nodes.b.start(nodes.heardByB.handlers)
        defer {
            nodes.a.stop()
            nodes.b.stop()
        }
        try body(nodes)
    }

    private func message(_ seq: Int64) -> ChatMessage {
        ChatMessage(
            id: "m\(seq)", sessionID: "aaaaaaaa-0000-4000-8000-000000000001", seq: seq, clientMessageID: "c\(seq)",
            kind: "text", body: String(repeating: "b", count: 300),
            sender: Participant(id: "v-1", role: "visitor", name: nil), createdAt: "2026-11-23T08:00:00.000Z")
    }

    /// More notifications at once than one statement carries: they go as
    /// several statements (each count prepared once), all heard, in order.
    @Test func aBurstLargerThanOneStatementArrivesWholeAndInOrder() throws {
        try withTwoNodes { nodes in
            let (a, heardByB) = (nodes.a, nodes.heardByB)
            #expect(heardByB.wait { a.peerCount == 1 })
            for round in 0..<3 {
                for index in 0..<150 {
                    let payload = Array("{\"n\":\(round * 150 + index)}".utf8)
                    a.publish(.sessionFrame(sessionID: "aaaaaaaa-0000-4000-8000-000000000001", payload: payload))
                }
                #expect(heardByB.wait { heardByB.events.withLock { $0.count } == (round + 1) * 150 })
            }
            #expect(heardByB.framePayloads == (0..<450).map { "{\"n\":\($0)}" })
            #expect(a.sent.load(ordering: .relaxed) == 450)
            #expect(a.dropped.load(ordering: .relaxed) == 0)
        }
    }

    @Test func whatOneNodePublishesTheOtherHearsInOrderAndAgainAfterALostConnection() throws {
        try withTwoNodes { nodes in
            let (a, heardByA, b, heardByB) = (nodes.a, nodes.heardByA, nodes.b, nodes.heardByB)
            #expect(heardByB.wait { heardByB.generations.withLock { $0 } == [1] })
            #expect(heardByA.wait { heardByA.generations.withLock { $0 } == [1] })
            b.caughtUp(generation: 1)
            #expect(b.state == .connected)
            // Each counts the other within a second; until then there is nobody to tell.
            #expect(heardByA.wait { a.peerCount == 1 && b.peerCount == 1 })

            // Ten batches of 10 messages of 300 bytes: each fits one notification, heard in order.
            for batch in 0..<10 {
                a.publish(.committed(messages: (1...10).map { message(Int64(batch * 10 + $0)) }, sessions: []))
            }
            // A batch of 100 would take more than a few notifications: it goes as its session's range.
            a.publish(.committed(messages: (101...200).map(message), sessions: []))
            a.publish(.sessionFrame(sessionID: "aaaaaaaa-0000-4000-8000-000000000001", payload: Array("{}".utf8)))
            func events() -> [BusNotification] { heardByB.events.withLock { $0 } }
            #expect(heardByB.wait { events().count >= 12 })
            let all = events().flatMap { event -> [Int64] in
                if case .committed(let messages, _) = event.event { return messages.map(\.seq) }
                return []
            }
            #expect(all == Array(1...100))
            #expect(
                events().contains {
                    $0.event
                        == .ranges([
                            CommittedRange(
                                sessionID: "aaaaaaaa-0000-4000-8000-000000000001", workspaceID: nil, firstSeq: 101,
                                lastSeq: 200)
                        ])
                })
            #expect(events().allSatisfy { $0.node == "a" })
            #expect(heardByA.events.withLock { $0 }.isEmpty, "a node ignores its own notifications")

            // Cut b's connection from the server side: b reconnects as generation 2 and is catching up.
            let admin = try nodes.database.connect()
            try admin.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE application_name = 'switchboard-bus' AND datname = current_database() AND pid <> pg_backend_pid()
                """)
            #expect(heardByB.wait { heardByB.generations.withLock { $0 }.contains(2) })
            #expect(heardByB.losses.load(ordering: .relaxed) >= 1)
            #expect(b.state == .catchingUp)
            b.caughtUp(generation: 1)
            #expect(b.state == .catchingUp, "an older generation's catch-up does not count")
            b.caughtUp(generation: heardByB.generations.withLock { $0.last ?? 0 })
            #expect(b.state == .connected)
            // a may have been cut too; wait until it is back and counts b again, then it is heard again.
            #expect(heardByA.wait { heardByA.generations.withLock { $0.count } >= 2 && a.peerCount == 1 })
            a.publish(.committed(messages: [message(101)], sessions: []))
            #expect(
                heardByB.wait {
                    heardByB.events.withLock { $0 }.contains { event in
                        if case .committed(let messages, _) = event.event { return messages.first?.seq == 101 }
                        return false
                    }
                })
        }
    }

    /// Routing's news crosses as it was sent; a team too big for one
    /// notification goes as a hint to read, never dropped.
    @Test func presenceAndQueuesCrossAndABigTeamGoesAsAHint() throws {
        try withTwoNodes { nodes in
            let (a, heardByB) = (nodes.a, nodes.heardByB)
            #expect(heardByB.wait { a.peerCount == 1 })
            let workspace = "0b1c2d3e-0000-4000-8000-000000000001"
            func presence(_ index: Int) -> OperatorPresence {
                OperatorPresence(
                    id: "op-\(index)", name: "Operator number \(index) with a long name", role: "operator",
                    status: .online, connected: true, activeSessions: 1, capacity: 5,
                    lastAssignedAt: "2026-11-25T01:00:00.000Z")
            }
            let small = BusEvent.presence(workspaceID: workspace, operators: [presence(1)], complete: false)
            let queue = BusEvent.queue(
                RoutingSnapshot(workspaceID: workspace, queue: ["s1", "s2"], queueLength: 2, availableOperators: 0))
            a.publish(small)
            a.publish(queue)
            a.publish(.presence(workspaceID: workspace, operators: (0..<200).map(presence), complete: true))
            #expect(heardByB.wait { heardByB.events.withLock { $0.count } >= 3 })
            let heard = heardByB.events.withLock { $0 }.map(\.event)
            #expect(heard == [small, queue, .routingStale(workspaceID: workspace)])
            #expect(a.dropped.load(ordering: .relaxed) == 0)
        }
    }
}
