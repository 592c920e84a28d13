import Foundation
import LoadKit
import Testing

@Suite("The harness catches what a faulty server does")
struct HarnessFindsInjectedFaultsTests {
    @Test("a gap, a duplicate, a reorder and a slow delivery are all reported, and the run fails")
    func injectedFaults() throws {
        let report = try Self.conversation(against: FaultInjectingServer(delayMilliseconds: 300))

        #expect(report.correctness.gaps == 1)  // seq 3 never reached the operator
        #expect(report.correctness.duplicates == 1)  // seq 5 arrived twice
        #expect(report.correctness.reorders == 1)  // seq 7 arrived after seq 8
        #expect(report.correctness.unanswered == 0)
        #expect(!report.passed)
        #expect(report.nodes.isEmpty && report.parameters.first?.name == "url")

        let delivery = try #require(report.latencies.first { $0.key == "send_to_delivery" })
        // 100 messages to two participants, one of them missing seq 3 and seeing seq 5 twice.
        #expect(delivery.count == 200)
        // Holding seq 10 back 300 ms also holds the ~30 sent behind it: the tail shows it, the median does not.
        #expect(delivery.max >= 300)
        #expect(delivery.p99 >= 200)
        #expect(delivery.p50 < 50)
    }

    @Test("over two nodes, the visitor and the operator are apart and every fault is still found, exactly once")
    func clusterOfTwo() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 300, nodes: 2)
        let urls = server.ports.map { "ws://127.0.0.1:\($0)/v1/ws" }
        let report = try Self.conversation(against: server, urls: urls)

        // The visitor said hello to the first node and the operator to the second, each naming its own host.
        #expect(server.greeted.map(\.node) == [0, 1])
        #expect(server.greeted.map(\.host) == server.ports.map { "127.0.0.1:\($0)" })
        // The same faults as against one node, counted the same: nothing is relaxed.
        #expect(report.correctness.gaps == 1)
        #expect(report.correctness.duplicates == 1)
        #expect(report.correctness.reorders == 1)
        #expect(report.correctness.unanswered == 0)
        #expect(!report.passed)
        #expect(report.latencies.first { $0.key == "send_to_delivery" }?.count == 200)

        #expect(report.nodes == urls.map { NodeShare(url: $0, connections: 1) })
        #expect(
            report.parameters.first?.name == "urls" && report.parameters.first?.value == urls.joined(separator: ","))
    }

    @Test("an operator dropped in a storm comes back to the node it first connected to")
    func stormRejoinsTheSameNode() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 0, nodes: 3)
        defer { server.stop() }
        let options = try LoadOptions(
            arguments: [
                "storm", "--jwt-secret", "a-test-secret-that-is-long-enough-for-hs256", "--connections", "3",
                "--operators", "2", "--rate", "20", "--seconds", "1", "--warmup", "0", "--drain", "1",
            ] + server.ports.flatMap { ["--url", "ws://127.0.0.1:\($0)/v1/ws"] })
        let report = try LoadRun.run(options)

        let greeted = server.greeted.map(\.node)
        // The visitor, its two operators, then the same two operators again after the storm.
        #expect(greeted.count == 5)
        #expect(greeted.first == 0)
        #expect(greeted[1...2].sorted() == [1, 2])
        #expect(greeted[3...].sorted() == [1, 2])
        #expect(report.nodes.map(\.connections) == [1, 1, 1])
    }

    @Test("an ack repeated in place of another send's answer fails the run, though the counts match")
    func repeatedAck() throws {
        let report = try Self.conversation(against: FaultInjectingServer(delayMilliseconds: 0, fault: .repeatedAck))

        #expect(report.correctness.gaps == 0 && report.correctness.duplicates == 0)
        #expect(report.correctness.reorders == 0)
        #expect(report.correctness.unanswered == 0)  // one ack too many, one too few
        #expect(report.correctness.unexpectedCloses == 1, "notes: \(report.notes)")  // the protocol violation
        #expect(report.notes.contains { $0.contains("a second ack for one send") })
        #expect(!report.passed)
    }

    @Test("a participant failing after traffic started fails the run, which still reports")
    func failureDuringTraffic() throws {
        // Not a set-up error (which throws, exit 2, no report): a correctness failure.
        let report = try Self.conversation(against: FaultInjectingServer(delayMilliseconds: 0, fault: .strayError))
        #expect(report.correctness.unexpectedCloses >= 1)
        #expect(report.notes.contains { $0.contains("failed after traffic started") })
        #expect(!report.passed)
    }

    @Test("a frame that breaks RFC 6455 (a masked server frame) closes the connection and fails the run")
    func maskedServerFrame() throws {
        let report = try Self.conversation(against: FaultInjectingServer(delayMilliseconds: 0, fault: .maskedFrame))
        #expect(report.correctness.unexpectedCloses >= 1)
        #expect(report.notes.contains { $0.contains("a masked server frame") })
        #expect(!report.passed)
    }

    @Test("with the gateway's pid, the report gives its CPU and the harness's own over the same window")
    func cpuFigures() throws {
        // The test server runs in this process, so it is the harness's CPU that
        // grows; a sleeping process stands in for the gateway and burns none.
        let sleeper = Process()
        sleeper.executableURL = URL(fileURLWithPath: "/bin/sleep")
        sleeper.arguments = ["60"]
        try sleeper.run()
        defer { sleeper.terminate() }
        let report = try Self.conversation(
            against: FaultInjectingServer(delayMilliseconds: 0),
            extra: ["--gateway-pid", "\(sleeper.processIdentifier)"])
        let gateway = try #require(report.figures.first { $0.key == "gateway_cpu_cores" })
        let harness = try #require(report.figures.first { $0.key == "harness_cpu_cores" })
        #expect(gateway.value < 0.01)
        #expect(harness.value > 0)
        #expect(harness.label == "harness CPU (cores busy)" && harness.unit == "cores")
    }

    /// One visitor and one operator sending 100 messages/s for a second
    /// against `server` (at `urls`: by default its first node), with up to 3 s
    /// to drain; the server stops after.
    private static func conversation(
        against server: FaultInjectingServer, urls: [String]? = nil, extra: [String] = []
    ) throws -> RunReport {
        defer { server.stop() }
        let urls = urls ?? ["ws://127.0.0.1:\(server.port)/v1/ws"]
        let options = try LoadOptions(
            arguments: [
                "conversations", "--jwt-secret", "a-test-secret-that-is-long-enough-for-hs256", "--sessions", "1",
                "--operators", "1", "--rate", "100", "--seconds", "1", "--warmup", "0", "--drain", "3",
            ] + urls.flatMap { ["--url", $0] } + extra)
        return try LoadRun.run(options)
    }
}
