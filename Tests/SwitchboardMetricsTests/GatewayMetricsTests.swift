import Dispatch
import Synchronization
import Testing

@testable import SwitchboardMetrics

/// The value of the sample line that starts with `series ` in `text`, if any.
func sampleValue(_ text: String, _ series: String) -> String? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return String(line.dropFirst(series.count + 1))
    }
    return nil
}

@Suite struct GatewayMetricsTests {
    @Test func countersMoveAsExpected() {
        let metrics = GatewayMetrics()
        metrics.framesIn.increment()
        metrics.framesIn.increment(by: 4)
        metrics.framesOut.increment(by: 2)
        metrics.messagesStored.increment(by: 3)
        metrics.messagesDuplicate.increment()
        metrics.fanoutDeliveries.increment(by: 10)
        metrics.slowConsumerCloses.increment()
        metrics.rateLimited.increment(by: 6)
        metrics.closes(code: 1000).increment()
        metrics.closes(code: 4008).increment(by: 2)
        metrics.closes(code: 1006).increment()  // dropped without a close frame
        metrics.closes(code: 1011).increment()  // not a labeled code
        metrics.closes(code: 3000).increment()
        metrics.databaseErrors(.writer).increment()
        metrics.databaseErrors(.reader).increment(by: 2)
        metrics.databaseReconnects(.reader).increment()

        let text = metrics.renderString()
        #expect(sampleValue(text, "switchboard_frames_in_total") == "5")
        #expect(sampleValue(text, "switchboard_frames_out_total") == "2")
        #expect(sampleValue(text, "switchboard_messages_stored_total") == "3")
        #expect(sampleValue(text, "switchboard_messages_duplicate_total") == "1")
        #expect(sampleValue(text, "switchboard_fanout_deliveries_total") == "10")
        #expect(sampleValue(text, "switchboard_slow_consumer_closes_total") == "1")
        #expect(sampleValue(text, "switchboard_rate_limited_total") == "6")
        #expect(sampleValue(text, #"switchboard_closes_total{code="1000"}"#) == "1")
        #expect(sampleValue(text, #"switchboard_closes_total{code="1001"}"#) == "0")
        #expect(sampleValue(text, #"switchboard_closes_total{code="4008"}"#) == "2")
        #expect(sampleValue(text, #"switchboard_closes_total{code="1006"}"#) == "1")
        #expect(sampleValue(text, #"switchboard_closes_total{code="other"}"#) == "2")
        #expect(sampleValue(text, #"switchboard_database_errors_total{component="writer"}"#) == "1")
        #expect(sampleValue(text, #"switchboard_database_errors_total{component="reader"}"#) == "2")
        #expect(sampleValue(text, #"switchboard_database_reconnects_total{component="writer"}"#) == "0")
        #expect(sampleValue(text, #"switchboard_database_reconnects_total{component="reader"}"#) == "1")
    }

    @Test func gaugesMoveAsExpected() {
        let metrics = GatewayMetrics()
        metrics.connections(.visitor).increment()
        metrics.connections(.visitor).increment()
        metrics.connections(.operator).increment()
        metrics.connections(.visitor).decrement()
        metrics.connections(.unauthenticated).set(4)
        metrics.writerQueueDepth.set(12)

        let text = metrics.renderString()
        #expect(sampleValue(text, #"switchboard_connections{role="visitor"}"#) == "1.0")
        #expect(sampleValue(text, #"switchboard_connections{role="operator"}"#) == "1.0")
        #expect(sampleValue(text, #"switchboard_connections{role="admin"}"#) == "0.0")
        #expect(sampleValue(text, #"switchboard_connections{role="unauthenticated"}"#) == "4.0")
        #expect(sampleValue(text, "switchboard_writer_queue_depth") == "12.0")
    }

    @Test func pullGaugesAreReadAtRenderTime() {
        let metrics = GatewayMetrics()
        let depth = Ticker()
        metrics.setPullSource(for: metrics.writerQueueDepth) { Double(depth.next()) }
        metrics.registerPullGauge(name: "switchboard_test_pull", help: "A pulled value.") { 2.5 }
        #expect(sampleValue(metrics.renderString(), "switchboard_writer_queue_depth") == "1.0")
        let text = metrics.renderString()
        #expect(sampleValue(text, "switchboard_writer_queue_depth") == "2.0")
        #expect(sampleValue(text, "switchboard_test_pull") == "2.5")
        #expect(text.contains("# TYPE switchboard_test_pull gauge\n"))
        // A second source for the same gauge replaces the first.
        metrics.setPullSource(for: metrics.writerQueueDepth) { 40 }
        #expect(sampleValue(metrics.renderString(), "switchboard_writer_queue_depth") == "40.0")
    }

    @Test func histogramBucketsAreCumulative() {
        let metrics = GatewayMetrics()
        for size in [1, 3, 3, 200, 5000] {
            metrics.batchSize.observe(size)
        }
        metrics.commitLatency.observe(Duration.milliseconds(3))
        metrics.commitLatency.observe(0.0004)
        metrics.commitLatency.observe(2.0)

        let text = metrics.renderString()
        let expectedBatch: [(String, String)] = [
            ("1.0", "1"), ("2.0", "1"), ("4.0", "3"), ("8.0", "3"), ("16.0", "3"), ("32.0", "3"), ("64.0", "3"),
            ("128.0", "3"), ("256.0", "4"), ("512.0", "4"), ("1024.0", "4"), ("4096.0", "4"), ("+Inf", "5"),
        ]
        for (le, count) in expectedBatch {
            #expect(sampleValue(text, #"switchboard_batch_size_bucket{le="\#(le)"}"#) == count, "le=\(le)")
        }
        #expect(sampleValue(text, "switchboard_batch_size_sum") == "5207.0")
        #expect(sampleValue(text, "switchboard_batch_size_count") == "5")

        #expect(sampleValue(text, #"switchboard_commit_latency_seconds_bucket{le="0.0005"}"#) == "1")
        #expect(sampleValue(text, #"switchboard_commit_latency_seconds_bucket{le="0.0025"}"#) == "1")
        #expect(sampleValue(text, #"switchboard_commit_latency_seconds_bucket{le="0.005"}"#) == "2")
        #expect(sampleValue(text, #"switchboard_commit_latency_seconds_bucket{le="1.0"}"#) == "2")
        #expect(sampleValue(text, #"switchboard_commit_latency_seconds_bucket{le="+Inf"}"#) == "3")
        #expect(sampleValue(text, "switchboard_commit_latency_seconds_count") == "3")
        let sum = Double(sampleValue(text, "switchboard_commit_latency_seconds_sum") ?? "") ?? -1
        #expect(abs(sum - 2.0034) < 1e-12)
    }

    @Test func httpRequestCountersAreCreatedOnceAndBounded() {
        let metrics = GatewayMetrics()
        #expect(!metrics.renderString().contains("switchboard_http_requests_total{"))
        metrics.recordHTTPRequest(route: .healthz, status: 200)
        metrics.recordHTTPRequest(route: .healthz, status: 200)
        metrics.httpRequests(route: .sessionPatch, status: 404).increment(by: 3)
        metrics.recordHTTPRequest(route: .messages, status: 418)  // uncommon: lock path
        metrics.recordHTTPRequest(route: .messages, status: 418)
        metrics.recordHTTPRequest(route: .other, status: 42)  // out of range
        metrics.recordHTTPRequest(route: .other, status: 1000)

        let text = metrics.renderString()
        let name = "switchboard_http_requests_total"
        #expect(sampleValue(text, #"\#(name){route="healthz",status="200"}"#) == "2")
        #expect(sampleValue(text, #"\#(name){route="session_patch",status="404"}"#) == "3")
        #expect(sampleValue(text, #"\#(name){route="messages",status="418"}"#) == "2")
        #expect(sampleValue(text, #"\#(name){route="other",status="other"}"#) == "2")
        #expect(text.split(separator: "\n").filter { $0.hasPrefix(name + "{") }.count == 4)
    }

    @Test func concurrentUpdatesAddUpExactly() {
        let metrics = GatewayMetrics()
        let threads = 4
        let perThread = 50_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let role: ConnectionRole = thread.isMultiple(of: 2) ? .visitor : .operator
            for i in 0..<perThread {
                metrics.framesIn.increment()
                metrics.fanoutDeliveries.increment(by: 2)
                metrics.closes(code: 1001).increment()
                metrics.connections(role).increment()
                metrics.connections(role).decrement()
                metrics.connections(.admin).increment()
                metrics.batchSize.observe(i % 8 + 1)
                if i % 100 == 0 {
                    metrics.recordHTTPRequest(route: .ws, status: 101)
                }
            }
        }
        let total = threads * perThread
        let text = metrics.renderString()
        #expect(sampleValue(text, "switchboard_frames_in_total") == "\(total)")
        #expect(sampleValue(text, "switchboard_fanout_deliveries_total") == "\(2 * total)")
        #expect(sampleValue(text, #"switchboard_closes_total{code="1001"}"#) == "\(total)")
        #expect(sampleValue(text, #"switchboard_connections{role="visitor"}"#) == "0.0")
        #expect(sampleValue(text, #"switchboard_connections{role="operator"}"#) == "0.0")
        #expect(sampleValue(text, #"switchboard_connections{role="admin"}"#) == "\(Double(total))")
        #expect(sampleValue(text, "switchboard_batch_size_count") == "\(total)")
        #expect(sampleValue(text, #"switchboard_batch_size_bucket{le="1.0"}"#) == "\(total / 8)")
        #expect(sampleValue(text, #"switchboard_batch_size_bucket{le="4.0"}"#) == "\(total / 2)")
        #expect(sampleValue(text, #"switchboard_batch_size_bucket{le="8.0"}"#) == "\(total)")
        #expect(sampleValue(text, "switchboard_batch_size_sum") == "\(Double(total / 8 * 36))")
        #expect(sampleValue(text, #"switchboard_http_requests_total{route="ws",status="101"}"#) == "\(total / 100)")
    }

    @Test func contentTypeIsPrometheusText004() {
        #expect(GatewayMetrics.contentType == "text/plain; version=0.0.4; charset=utf-8")
    }
}

/// A thread-safe counter for the pull-gauge test.
final class Ticker: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock {
            $0 += 1; return $0
        }
    }
}
