import Testing

@testable import LoadKit

@Suite("Bench sections (docs/benchmarks.md: Latency, Abuse, Clusters)")
struct BenchSectionsTests {
    static let heading = ["## TITLE", "", "Run NOW on HERE."]

    @Test("figures are spelled as the Python drivers spelled them")
    func formats() {
        #expect(BenchFormat.percent(0.123) == "+12%")
        #expect(BenchFormat.percent(-0.004) == "-0%")
        #expect(BenchFormat.percent(0) == "+0%")
        #expect(BenchFormat.percent(.nan) == "+nan%")
        #expect(BenchFormat.signed(-0.04, 1) == "-0.0")
        #expect(BenchFormat.signed(3.25, 1) == "+3.2")
        #expect(BenchFormat.spread([1.0, nil, 2.5]) == "1.0-2.5")
        #expect(BenchFormat.spread([10500, 10500], decimals: 0) == "10,500")
        #expect(BenchFormat.spread([nil, nil]) == "n/a")
        #expect(BenchFormat.spread([], grouping: false, empty: "-", byText: true) == "-")
        // Python's cluster table compared the printed figures, the latency one the values.
        #expect(BenchFormat.spread([1.04, 1.01], grouping: false, empty: "-", byText: true) == "1.0")
        #expect(BenchFormat.spread([1.04, 1.01]) == "1.0-1.0")
    }

    @Test("the abuse verdict reads a change against the A/A runs' own noise")
    func abuseVerdict() {
        #expect(AbuseSection.verdict(abused: [0.05, 0.1], controls: [0.02, -0.1]) == .met)
        #expect(AbuseSection.verdict(abused: [0.05, 0.2], controls: [0.02, -0.1]) == .missed)
        #expect(AbuseSection.verdict(abused: [-0.25], controls: [0.02]) == .missed)
        #expect(AbuseSection.verdict(abused: [0.05], controls: [-0.2]) == .notShown)
        #expect(AbuseSection.verdict(abused: [.nan], controls: [0.01]) == .missed)
    }

    private func latencyRun(_ repeat_: Int, p99: Double, floor: Double, passed: Bool = true) -> LatencyRun {
        let stages = SendStages.stages.map {
            SendStages.Stage(name: $0, count: 100, p50Milliseconds: 0.5, p99Milliseconds: 1.25)
        }
        return LatencyRun(
            label: "fanout-10x100-\(repeat_)", shape: "10 x 100", rate: 10500, passed: passed, deliveryP50Ms: 2,
            deliveryP99Ms: p99, ackP99Ms: 3, deliveriesPerSecond: 1_050_000, gatewayCores: 0.91, floorP50Ms: 1,
            floorP99Ms: floor, stages: stages,
            cpu: ["machine": 1.5, "steal": 0.05, "gateway": 0.9, "postgres": 0.3, "harness": 0.4],
            stored: 80_000,
            postgresByRole: [
                "switchboard-writer": 2.0 + Double(repeat_), "switchboard-search-indexer": 0.6, "background": 0.4,
                "postmaster": 0.01,
            ], indexed: 60_000)
    }

    @Test("Latency: one row per shape with ranges over the repeats, the target, stages and the ramp")
    func latencySection() {
        var results = LatencyResults(
            command: "scripts/bench-latency", started: "2026-11-24 10:00 UTC", repeats: 2, seconds: 8)
        results.fanout = [latencyRun(1, p99: 9, floor: 5), latencyRun(2, p99: 12, floor: 6)]
        let steps: [LatencyRamp.Step] = [
            .init(rate: 2500, p99Ms: 6, floorP99Ms: 4, within: true, ackedShare: 1),
            .init(rate: 5000, p99Ms: 12.34, floorP99Ms: 4.06, within: false, ackedShare: 1),
        ]
        results.ramp = [LatencyRamp(label: "ramp-1", steps: steps, passed: true)]
        let text = LatencySection.render(results, heading: Self.heading)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines[0..<4]) == Self.heading + [""])
        #expect(
            LatencySection.render(results).hasPrefix(
                "## Latency: the gateway above its own commit (scripts/bench-latency)\n\nRun "))
        #expect(
            lines.contains(
                "| 10 x 100 | 10,500 | 2.0 ms | 9.0-12.0 ms | 1.0 ms | 5.0-6.0 ms | 4.0-6.0 ms | **MISSED** | 1,050,000 | 0.91 |"
            ))
        #expect(lines.contains("| 10 x 100 | 10,500 | 1.50 | 0.05 | 0.90 | 0.30 | 0.40 |"))
        // (2 + 1 + 0.6 + 0.4 + 0.01) s and (2 + 2 + 0.6 + 0.4 + 0.01) s of PostgreSQL over 80,000 stored
        // messages: 50.1 and 62.6 us; the postmaster's 0.1 us a message is under a column's microsecond.
        #expect(
            lines.contains(
                "| shape | msg/s | PostgreSQL | switchboard-writer | switchboard-search-indexer | background | the rest |"
            ))
        #expect(lines.contains("| 10 x 100 | 10,500 | 50.1-62.6 | 37.5-50.0 | 7.5 | 5.0 | 0.1 |"))
        #expect(
            results.fanout[0].postgresPerStoredText
                == "50.1 us (switchboard-writer 37.5, switchboard-search-indexer 7.5, background 5.0, postmaster 0.1)")
        // 0.6 s of the indexer over the 60,000 messages it indexed.
        #expect(text.contains("(`switchboard_search_indexed_total`), in µs: 10 x 100 10.0."))
        #expect(results.fanout[0].json["indexer_us_per_indexed"]?.doubleValue == 10.0)
        #expect(lines.contains("| shape | msg/s | receive | queue | commit | handoff | deliver | total |"))
        #expect(
            lines.contains(
                "| 10 x 100 | 10,500 | " + Array(repeating: "0.50 / 1.25", count: 6).joined(separator: " | ") + " |"))
        #expect(lines.contains("| 1 | 2,500 msg/s | 2,500: 6.0 / 4.0; 5,000: 12.3 / 4.1 |"))
        #expect(
            text.contains(
                "Correctness (gaps, duplicates, reorders, lost acks, acked messages in the database): every run passed."
            ))
        #expect(text.hasSuffix(".\n\n"))

        results.fanout[1] = latencyRun(2, p99: 10, floor: 6, passed: false)
        let again = LatencySection.render(results, heading: Self.heading)
        #expect(again.contains("| 4.0 ms | met |"))
        #expect(again.contains("**a run failed: see its report**"))
    }

    @Test("Latency: results.json reads back into the same section (--render)")
    func latencyRoundTrip() throws {
        var results = LatencyResults(command: "c", started: "s", repeats: 1, seconds: 3)
        results.fanout = [latencyRun(1, p99: 9, floor: 5)]
        results.ramp = [
            LatencyRamp(
                label: "ramp-1", steps: [.init(rate: 1000, p99Ms: 6, floorP99Ms: 4, within: true, ackedShare: 0.995)])
        ]
        let read = try #require(LatencyResults(json: results.json))
        #expect(
            LatencySection.render(read, heading: ["x"])
                == LatencySection.render(results, heading: ["x"]))
        #expect(read.fanout[0].aboveP99Ms == 4)
        #expect(read.ramp[0].highestWithinRate == 1000)
    }

    @Test("Abuse: both tables and the verdict line")
    func abuseSection() {
        let attack = AbuserCounts(attempts: 13000, maxHeld: 256)
        let alone = AbuseRun(
            label: "alone-1", abuse: false, passed: true, p50Ms: 5, p99Ms: 20, insideP50Ms: 1, insideP99Ms: 4,
            deliveriesPerSecond: 300_000)
        var abused = alone
        abused.abuse = true
        abused.p99Ms = 22
        abused.insideP99Ms = 5
        abused.refused = ["per_ip_connections": 1234, "per_ip_rate": 5678]
        abused.attack = attack
        let control = InterleavedRun(label: "interleaved-aa-1", abuse: false, passed: true, aP99Ms: 20, bP99Ms: 19)
        let within = InterleavedRun(
            label: "interleaved-abused-1", abuse: true, passed: true, aP99Ms: 20, bP99Ms: 23, aP50Ms: 5, bP50Ms: 6,
            aCount: 100_000, bCount: 99_000, attack: attack)
        var results = AbuseResults(
            command: "scripts/bench-abuse --rate 3000", started: "T", repeats: 1, seconds: 10,
            shape: (sessions: 10, subscribers: 100, rate: 3000), abuseRate: 1000, interleaveSeconds: 120,
            pairs: [(alone, abused)], interleaved: [(control, within)])
        let text = AbuseSection.render(results, heading: Self.heading)
        #expect(
            text.hasPrefix("## TITLE\n\nRun NOW on HERE.\n\nCommand: `scripts/bench-abuse --rate 3000` (started T)."))
        #expect(AbuseSection.render(results).hasPrefix("## Abuse: one address flooding beside the fanout load"))
        #expect(text.contains("(10 sessions x 100 subscribers at 3,000 msg/s, 10 s)"))
        #expect(
            text.contains(
                "| 1 | 20.0 ms | 22.0 ms | +10% | 4.0 / 5.0 ms | +25% | 5.0 / 5.0 ms | 300,000 / 300,000 | 13,000 | 1,234 / 5,678 | 256 | passed |"
            ))
        #expect(
            text.contains(
                "| 1 | 20.0 / 19.0 ms | -5% | 20.0 / 23.0 ms | +15% | 5.0 / 6.0 ms | 100,000 / 99,000 | 13,000 | passed |"
            ))
        #expect(
            text.contains(
                "Separate runs: the p99 changed by +10% to +10% over the repeats, inside the gateway by +25% to +25%."))
        #expect(
            text.contains("the A/A runs' two sides differed by -5% to -5% (**target met**: under 20% in every repeat"))
        #expect(results.failed.isEmpty)
        results.interleaved[0].control.passed = false
        #expect(results.failed == ["interleaved-aa-1"])
    }

    private func clusterRun(
        _ bus: String, _ name: String, nodes: Int, writers: Int = 2, depth: Int = 2, rate: Int, p99: Double
    ) -> ClusterRun {
        ClusterRun(
            label: "\(bus)-\(name)-\(rate)-1", nodes: nodes, writers: writers, depth: depth, rate: rate, passed: true,
            deliveriesPerSecond: 20000, p50Ms: 2, p99Ms: p99, ackP99Ms: 4,
            cores: ["machine": 1.8, "postgres": 0.6, "gateways": 0.7])
    }

    @Test("Clusters: the writer's rounds, the NOTIFY CPU share, the runs and the verdict at 10,000 msg/s")
    func clusterSection() {
        var results = ClusterResults()
        results.plain = [["kind": "batched", "per_s": 100000]]
        results.notify = [["kind": "batched", "per_s": 97000, "notifications": 98]]
        results.notifyCPU = [
            NotifyCPURun(mode: "full throughput", writerSeconds: 10, busSeconds: 0.32),
            NotifyCPURun(mode: "10,000 msg/s", writerSeconds: 4, busSeconds: 0.5),
        ]
        results.runs = [
            clusterRun("postgres", "one-node", nodes: 1, rate: 10000, p99: 10),
            clusterRun("postgres", "two-nodes", nodes: 2, rate: 10000, p99: 13.5),
            clusterRun("postgres", "two-nodes-w1-d1", nodes: 2, writers: 1, depth: 1, rate: 10000, p99: 16),
        ]
        let run = ClusterSection.Run(quick: false, seconds: 10, repeats: 1, rates: [10000])
        let text = ClusterSection.render(results, run, heading: Self.heading)
        #expect(text.hasPrefix("## TITLE\n\nRun NOW on HERE.\n\n`scripts/bench-cluster`. Nodes"))
        #expect(ClusterSection.render(results, run).hasPrefix("## Clusters\n\nRun "))
        #expect(text.contains("| 1 | 100,000 | 97,000 | 0.970 | 98 |"))
        #expect(text.contains("stores 0.970-0.970 times as many messages per second as without (median 0.970)"))
        #expect(text.contains("| full throughput | 10.00 | 0.32 | 3.2% |"))
        #expect(
            text.contains("full throughput: notifying costs 3.2-3.2% of the writer's database CPU (met: the target"))
        #expect(text.contains("10,000 msg/s: notifying costs 12.5-12.5% of the writer's database CPU (small batches"))
        #expect(text.contains("Each ran once per bus and rate"))
        #expect(
            text.contains(
                "| postgres | 10,000 | 2 x 1, d1 | pass | 20,000 | 2.0 | 16.0 | 4.0 | 12.0 | 1.8 / 0.6 / 0.7 |"))
        #expect(
            text.contains(
                "- postgres, 2 nodes x 2 writers: median p99 13.5 ms against 10.0 ms on one node (+3.5 ms): met."))
        #expect(
            text.contains(
                "- postgres, 2 nodes x 1 writer at pipeline depth 1: median p99 16.0 ms against 10.0 ms on one node (+6.0 ms): **missed**."
            ))

        let quick = ClusterSection.render(
            results, .init(quick: true, seconds: 4, repeats: 1, rates: [2000]), heading: ["R"])
        #expect(quick.contains("`scripts/bench-cluster --quick`"))
        #expect(quick.contains("This run had no 10,000 msg/s step; at 2,000 msg/s, for reference:"))
    }

    @Test("medians as Python's statistics.median takes them")
    func medians() {
        #expect(ClusterSection.median([3, 1, 2]) == 2)
        #expect(ClusterSection.median([4, 1, 3, 2]) == 2.5)
        #expect(ClusterSection.median([]).isNaN)
    }
}
