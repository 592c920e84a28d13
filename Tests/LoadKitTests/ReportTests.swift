import Foundation
import Testing

@testable import LoadKit

/// A failing run with everything a writer has to handle: two latencies, a timeline,
/// error frames, a non-finite figure and notes that need escaping.
private func sampleReport() -> RunReport {
    var correctness = Correctness()
    correctness.gaps = 2
    correctness.duplicates = 1
    correctness.verifiedInDatabase = 12_345
    correctness.databaseChecked = true
    correctness.errors = ["rate_limited": 3, "overloaded": 12]

    let curve = [
        CurvePoint(percentile: 0, milliseconds: 0.2), CurvePoint(percentile: 50, milliseconds: 0.412),
        CurvePoint(percentile: 90, milliseconds: 1.2), CurvePoint(percentile: 99, milliseconds: 4.56),
        CurvePoint(percentile: 99.9, milliseconds: 12.3), CurvePoint(percentile: 99.99, milliseconds: 30),
        CurvePoint(percentile: 100, milliseconds: 45.6),
    ]
    return RunReport(
        scenario: "conversations",
        parameters: [("connections", "1000"), ("rooms", "50"), ("rate", "50000/s")],
        startedAt: "2024-05-01T10:00:00+02:00",
        durationSeconds: 60,
        figures: [
            Figure(key: "stored_per_second", label: "stored messages/s", value: 51_234, unit: "msg/s"),
            Figure(key: "delivered", label: "delivered", value: 1_234_567, unit: "msgs"),
            Figure(key: "fanout", label: "mean fan-out", value: 3.14159, unit: "recipients"),
            Figure(key: "tiny", label: "tiny", value: 0.00001, unit: "s"),
            Figure(key: "cpu", label: "gateway cpu", value: .nan, unit: "%"),
        ],
        latencies: [
            LatencySummary(
                key: "send_to_ack", label: "send to ack", count: 100_000, p50: 0.412, p90: 1.2, p99: 4.56,
                p999: 12.3, max: 45.6, curve: curve),
            LatencySummary(
                key: "send_to_delivery", label: "send to delivery", count: 250_000, p50: 0.9, p90: 3.5, p99: 25.5,
                p999: 80.25, max: 120,
                curve: curve.map { CurvePoint(percentile: $0.percentile, milliseconds: $0.milliseconds * 2) }),
        ],
        timeline: [
            TimelinePoint(second: 0, sent: 40_000, acked: 39_000, delivered: 150_000),
            TimelinePoint(second: 1, sent: 50_000, acked: 50_500, delivered: 201_000),
            TimelinePoint(second: 2, sent: 50_000, acked: 49_900, delivered: 199_000),
        ],
        correctness: correctness,
        targets: [
            .atLeast("stored_per_second", "throughput", value: 51_234, goal: 50_000, unit: "msg/s"),
            .under("send_to_delivery_p99_ms", "delivery p99", value: 25.5, goal: 25, unit: "ms"),
            .reported("connect_rate", "connect rate", value: 4_084, unit: "conn/s"),
        ],
        notes: ["ramp held", "quote \" backslash \\ newline\nsecond line", "<script>alert(1)</script>"])
}

private func parseJSON(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any])
}

private func number(_ value: Any?) -> Double? { (value as? NSNumber)?.doubleValue }

private func occurrences(of needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
}

@Suite struct ReportNumberFormattingTests {
    @Test func groupsThousands() {
        #expect(ReportNumberFormat.grouped(0) == "0")
        #expect(ReportNumberFormat.grouped(999) == "999")
        #expect(ReportNumberFormat.grouped(51_234) == "51,234")
        #expect(ReportNumberFormat.grouped(-1_234_567) == "-1,234,567")
        #expect(ReportNumberFormat.grouped(UInt64.max) == "18,446,744,073,709,551,615")
    }

    @Test func neverPrintsExponentsOrNoise() {
        #expect(ReportNumberFormat.trimmed(0.00001, maxDecimals: 3) == "0")
        #expect(ReportNumberFormat.trimmed(0.1 + 0.2, maxDecimals: 3) == "0.3")
        #expect(ReportNumberFormat.trimmed(12, maxDecimals: 3) == "12")
        #expect(ReportNumberFormat.trimmed(-0.0001, maxDecimals: 3) == "0")
        #expect(ReportNumberFormat.trimmed(1e20, maxDecimals: 3) == "100000000000000000000")
        #expect(ReportNumberFormat.fixed(2.5, decimals: 2) == "2.50")
        #expect(ReportNumberFormat.fixed(-1234.5, decimals: 0, grouping: true) == "-1,235")
        #expect(ReportNumberFormat.fixed(.infinity, decimals: 2) == "n/a")
    }

    @Test func humanFigures() {
        #expect(ReportNumberFormat.figure(51_234) == "51,234")
        #expect(ReportNumberFormat.figure(51_234.56) == "51,234.6")
        #expect(ReportNumberFormat.figure(3.14159) == "3.14")
        #expect(ReportNumberFormat.figure(0.5) == "0.5")
        #expect(ReportNumberFormat.milliseconds(0.4123) == "0.412")
        #expect(ReportNumberFormat.milliseconds(4.123) == "4.12")
        #expect(ReportNumberFormat.milliseconds(12.34) == "12.3")
        #expect(ReportNumberFormat.milliseconds(1234.5) == "1,235")
        #expect(ReportNumberFormat.compact(2_500) == "2,500")
        #expect(ReportNumberFormat.compact(50_000) == "50k")
        #expect(ReportNumberFormat.compact(12_500_000) == "12.5M")
    }

    @Test func chartScales() {
        #expect(ReportChartScale.ticks(upTo: 47) == [0, 10, 20, 30, 40, 50])
        let unit = ReportChartScale.ticks(upTo: 0)
        #expect(unit.count == 6 && unit.last == 1)
        #expect(ReportChartScale.ticks(upTo: 2, minimumStep: 1) == [0, 1, 2])
        #expect(abs(ReportCharts.nines(99.9) - 3) < 1e-9)
        #expect(ReportCharts.nines(100) == .infinity)
        #expect(ReportCharts.percentileLabel(0) == "0%")
        #expect(ReportCharts.percentileLabel(1) == "90%")
        #expect(ReportCharts.percentileLabel(4) == "99.99%")
    }

    @Test func percentileAxisReachesTheDeepestPointAndPinsTheMaximum() {
        let curve = [50, 99.999, 100].map { CurvePoint(percentile: $0, milliseconds: $0 / 10) }
        let deep = LatencySummary(
            key: "k", label: "deep", count: 3, p50: 5, p90: 9, p99: 9.9, p999: 9.99, max: 10, curve: curve)
        let chart = ReportCharts.latencyDistribution([deep])
        #expect(chart.x.ticks.map(\.label) == ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%"])
        #expect(chart.series.first?.points.last?.x == 5)

        let shallow = ReportCharts.latencyDistribution([])
        #expect(shallow.x.ticks.last?.label == "99.99%")
    }
}

@Suite struct ReportWriterTests {
    @Test func textShowsVerdictAndNumbers() throws {
        let text = TextReport.render(sampleReport())
        #expect(text.hasPrefix("conversations: FAIL (3 failures)\n"))
        #expect(text.contains("connections=1000  rooms=50  rate=50000/s"))
        for expected in ["51,234", "1,234,567", "3.14", "n/a", "100,000", "0.412", "12.3", "80.3", "12,345", "MISSED"] {
            #expect(text.contains(expected), "missing \(expected)")
        }
        #expect(text.contains("<- failure"))
        let overloaded = try #require(text.range(of: "overloaded"))
        let limited = try #require(text.range(of: "rate_limited"))
        #expect(overloaded.lowerBound < limited.lowerBound)
        #expect(text.unicodeScalars.allSatisfy { $0.isASCII })

        // The latency table's right-aligned rows all end in the same column.
        let lines = text.split(separator: "\n")
        let header = try #require(lines.firstIndex { $0.hasPrefix("  latency") })
        let table = lines[header...(header + 2)]
        #expect(Set(table.map(\.count)).count == 1)
        #expect(table.first?.hasSuffix("max") == true)
    }

    @Test func textPassesCleanRun() {
        var report = sampleReport()
        report.correctness = Correctness()
        let text = TextReport.render(report)
        #expect(text.hasPrefix("conversations: PASS\n"))
        #expect(text.contains("not checked"))
        #expect(!text.contains("FAIL"))
    }

    @Test func jsonRoundTrips() throws {
        let report = sampleReport()
        let json = JSONReport.render(report)
        let root = try parseJSON(json)
        #expect(root["scenario"] as? String == "conversations")
        #expect((root["passed"] as? NSNumber)?.boolValue == false)
        #expect(root["started_at"] as? String == "2024-05-01T10:00:00+02:00")
        #expect(number(root["duration_s"]) == 60)
        #expect(root["parameters"] as? [String: String] == ["connections": "1000", "rooms": "50", "rate": "50000/s"])

        let figures = try #require(root["figures"] as? [String: [String: Any]])
        #expect(number(figures["stored_per_second"]?["value"]) == 51_234)
        #expect(figures["stored_per_second"]?["unit"] as? String == "msg/s")
        #expect(number(figures["fanout"]?["value"]) == 3.142)
        #expect(number(figures["tiny"]?["value"]) == 0)
        #expect(figures["cpu"]?["value"] is NSNull)

        let latencies = try #require(root["latencies"] as? [String: [String: Any]])
        let delivery = try #require(latencies["send_to_delivery"])
        #expect(number(delivery["p99_ms"]) == 25.5)
        #expect(number(delivery["p999_ms"]) == 80.25)
        #expect(number(delivery["count"]) == 250_000)
        #expect(delivery["label"] as? String == "send to delivery")
        let curve = try #require(delivery["curve"] as? [[Any]])
        #expect(curve.count == 7)
        #expect(curve.last.map { $0.compactMap(number) } == [100, 91.2])
        #expect(number(latencies["send_to_ack"]?["p50_ms"]) == 0.412)

        let timeline = try #require(root["timeline"] as? [[String: Any]])
        #expect(timeline.count == 3)
        #expect(number(timeline[1]["acked"]) == 50_500)
        #expect(number(timeline[2]["connected"]) == 0)

        let correctness = try #require(root["correctness"] as? [String: Any])
        #expect(number(correctness["failures"]) == 3)
        #expect(number(correctness["gaps"]) == 2)
        #expect(number(correctness["lost_acks"]) == 0)
        #expect(number(correctness["verified_in_database"]) == 12_345)
        #expect((correctness["database_checked"] as? NSNumber)?.boolValue == true)
        #expect(correctness["errors"] as? [String: Int] == ["overloaded": 12, "rate_limited": 3])

        let targets = try #require(root["targets"] as? [[String: Any]])
        // The goals travel with the report: renderers need no copy of them.
        #expect(targets.map { $0["met"] is NSNull ? nil : ($0["met"] as? NSNumber)?.boolValue } == [true, false, nil])
        #expect(
            targets.map { $0["key"] as? String } == ["stored_per_second", "send_to_delivery_p99_ms", "connect_rate"])
        #expect(targets.map { number($0["goal"]) } == [50_000, 25, nil])
        #expect(targets.map { number($0["value"]) } == [51_234, 25.5, 4_084])
        #expect(targets[0]["target"] as? String == ">= 50,000 msg/s")
        #expect(targets[1]["target"] as? String == "< 25 ms")
        #expect(targets[1]["measured"] as? String == "25.5 ms")
        #expect(targets[2]["target"] as? String == "none (report only)")

        #expect(root["notes"] as? [String] == report.notes)
        for forbidden in ["NaN", "Infinity", "e-0", "e+"] {
            #expect(!json.contains(forbidden), "JSON contains \(forbidden)")
        }
    }

    @Test func jsonEscapesStrings() {
        var report = RunReport(scenario: "tab\there")
        report.notes = ["quote \" backslash \\ newline\nend", "bell \u{7} nul \u{0}"]
        let json = JSONReport.render(report)
        #expect(json.contains(#""quote \" backslash \\ newline\nend""#))
        #expect(json.contains(#""bell \u0007 nul \u0000""#))
        #expect(json.contains(#""scenario":"tab\there""#))
    }

    @Test func htmlIsSelfContainedAndEscaped() {
        let html = HTMLReport.render(sampleReport())
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(occurrences(of: "<svg", in: html) == 2)
        #expect(occurrences(of: "<polyline", in: html) == 5)  // two latencies; sent, acked, delivered
        #expect(html.contains(#"<span class="badge fail">FAIL</span>"#))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script"))
        for label in ["0%", "90%", "99%", "99.9%", "99.99%", "send to delivery", "delivered", "200k"] {
            #expect(html.contains(">\(label)<"), "missing label \(label)")
        }
        for forbidden in ["NaN", "inf", "Infinity", "src=", "href=", "url("] {
            #expect(!html.contains(forbidden), "HTML contains \(forbidden)")
        }
    }

    @Test func htmlShowsConnectedOnlyWhenUsed() {
        var report = sampleReport()
        report.timeline = [TimelinePoint(second: 0, connected: 500), TimelinePoint(second: 1, connected: 700)]
        let html = HTMLReport.render(report)
        #expect(occurrences(of: "<polyline", in: html) == 6)
        #expect(html.contains(">connected<"))
        #expect(!HTMLReport.render(sampleReport()).contains(">connected<"))
    }

    @Test func clusterNodesAreListedOnlyForAClusterRun() throws {
        var report = sampleReport()
        report.nodes = [
            NodeShare(url: "ws://10.0.0.1:8080/v1/ws", connections: 1_500),
            NodeShare(url: "ws://10.0.0.2:8080/v1/ws", connections: 750),
        ]
        let text = TextReport.render(report)
        #expect(
            text.contains("Nodes\n  node                      connections\n  ws://10.0.0.1:8080/v1/ws        1,500\n"))
        #expect(text.contains("  ws://10.0.0.2:8080/v1/ws          750\n"))

        let root = try parseJSON(JSONReport.render(report))
        let nodes = try #require(root["nodes"] as? [[String: Any]])
        #expect(nodes.map { $0["url"] as? String } == ["ws://10.0.0.1:8080/v1/ws", "ws://10.0.0.2:8080/v1/ws"])
        #expect(nodes.map { number($0["connections"]) } == [1_500, 750])

        let html = HTMLReport.render(report)
        #expect(html.contains("<h2>Nodes</h2>"))
        #expect(html.contains(#"<td>ws://10.0.0.2:8080/v1/ws</td><td class="num">750</td>"#))

        // One node: no section and no key, so such a report reads as it always did.
        let single = sampleReport()
        #expect(!TextReport.render(single).contains("Nodes"))
        #expect(try parseJSON(JSONReport.render(single))["nodes"] == nil)
        #expect(!HTMLReport.render(single).contains("Nodes"))
    }

    @Test func emptyReportRenders() throws {
        let report = RunReport(scenario: "idle")
        let text = TextReport.render(report)
        #expect(text.hasPrefix("idle: PASS\n"))
        #expect(text.contains("0.0 s of traffic"))

        let root = try parseJSON(JSONReport.render(report))
        #expect((root["passed"] as? NSNumber)?.boolValue == true)
        #expect((root["parameters"] as? [String: Any])?.isEmpty == true)
        #expect((root["latencies"] as? [String: Any])?.isEmpty == true)
        #expect((root["timeline"] as? [Any])?.isEmpty == true)
        #expect((root["correctness"] as? [String: Any])?["errors"] as? [String: Int] == [:])

        let html = HTMLReport.render(report)
        #expect(occurrences(of: "<svg", in: html) == 2)
        #expect(occurrences(of: ">no data<", in: html) == 2)
        #expect(!html.contains("<polyline"))
    }
}
