import Foundation
import SwitchboardAuth
import Testing

/// `/metrics` in Prometheus text format: it parses with prometheus_client's
/// parser, and the counters move when messages flow.
@Suite(.serialized) struct MetricsEndpointTests {
    private func scrape(_ gateway: any TestGateway) throws -> [String: Double] {
        let reply = try HTTPTestClient.request(gateway, "GET", "/metrics")
        #expect(reply.status == 200)
        #expect(reply.head.lowercased().contains("content-type: text/plain; version=0.0.4"))
        var samples: [String: Double] = [:]
        for line in String(decoding: reply.body, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { samples[String(parts[0])] = value }
        }
        return samples
    }

    @Test func countersMoveWhenMessagesFlow() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let before = try scrape(fixture.gateway)
        let visitor = try fixture.client(.visitor, "v-1")
        let sessionID = try fixture.createSession(visitor)
        let ken = try fixture.client(.operator, "op-ken")
        try fixture.join(ken, sessionID)
        for i in 0..<5 {
            _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "m\(i)", "body": "b"])
        }
        _ = try visitor.request(["type": "send", "session_id": sessionID, "client_msg_id": "m0", "body": "b"])
        for _ in 0..<5 { _ = try ken.next("message") }
        let after = try scrape(fixture.gateway)
        func delta(_ name: String) -> Double { (after[name] ?? 0) - (before[name] ?? 0) }
        #expect(delta("switchboard_messages_stored_total") == 5)
        #expect(delta("switchboard_messages_duplicate_total") == 1)
        #expect(delta("switchboard_fanout_deliveries_total") >= 10)
        #expect(delta("switchboard_frames_in_total") >= 9)
        #expect(after["switchboard_connections{role=\"visitor\"}"] == 1)
        #expect(after["switchboard_connections{role=\"operator\"}"] == 1)
        #expect((after["switchboard_batch_size_count"] ?? 0) >= 1)
        #expect((after["switchboard_commit_latency_seconds_count"] ?? 0) >= 1)
        #expect((after["switchboard_http_requests_total{route=\"ws\",status=\"101\"}"] ?? 0) == 2)
    }

    @Test func theExpositionParsesWithPrometheusClient() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let visitor = try fixture.client(.visitor, "v-1")
        _ = try fixture.createSession(visitor)
        let reply = try HTTPTestClient.request(fixture.gateway, "GET", "/metrics")
        let python = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_PYTHON"] ?? "python3"
        let input = NSTemporaryDirectory() + "sb-metrics-\(UUID().uuidString).txt"
        try Data(reply.body).write(to: URL(fileURLWithPath: input))
        defer { try? FileManager.default.removeItem(atPath: input) }
        let script = """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            names = {f.name: f.type for f in text_string_to_metric_families(open(sys.argv[1]).read())}
            for name, kind in [("switchboard_messages_stored", "counter"), ("switchboard_connections", "gauge"),
                               ("switchboard_commit_latency_seconds", "histogram"), ("switchboard_closes", "counter"),
                               ("switchboard_http_requests", "counter"), ("switchboard_writer_queue_depth", "gauge")]:
                assert names.get(name) == kind, (name, names.get(name))
            print(len(names))
            """
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(python), strdup("-c"), strdup(script), strdup(input), nil]
        defer { for arg in argv { free(arg) } }
        #expect(posix_spawnp(&pid, python, nil, nil, argv, environ) == 0, "cannot start \(python)")
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        #expect(status == 0, "prometheus_client could not parse /metrics (is it installed in \(python)?)")
    }
}
