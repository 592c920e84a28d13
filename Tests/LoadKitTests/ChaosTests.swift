import SwitchboardJSON
import Testing

@testable import LoadKit

@Suite("Chaos: verdict, options and reports")
struct ChaosTests {
    static let start = Double(DriveClock.parseUTC("2026-11-23T18:11:05Z")!)

    /// A harness report: the run started at `start`, deliveries every second up to `lastDelivery`.
    static func report(
        correctness: JSONValue = [
            "gaps": 0, "duplicates": 0, "lost_acks": 0, "verified_in_database": 40_000, "database_checked": true,
            "failures": 0, "errors": ["unavailable": 12],
        ],
        lastDelivery: Int = 50, figures: JSONValue = ["acked": ["value": 40_000]]
    ) -> JSONValue {
        let timeline = (0...60).map { second -> JSONValue in
            ["second": .int(second), "acked": 900, "delivered": second <= lastDelivery ? 1800 : 0]
        }
        return [
            "scenario": "conversations", "started_at": "2026-11-23T18:11:05Z", "parameters": ["sessions": "300"],
            "figures": figures, "timeline": .array(timeline), "correctness": correctness,
        ]
    }

    static let faults = [
        ChaosFault(kind: .terminate, at: start + 5, recoveredSeconds: 0.21, note: "3 connections terminated"),
        ChaosFault(kind: .sigterm, at: start + 32, recoveredSeconds: 1.17, note: "exited with 0 after 0.39 s"),
    ]

    @Test("a clean run with deliveries after the last fault passes")
    func clean() {
        let verdict = ChaosVerdict.judge(
            report: Self.report(), harnessExit: 0, faults: Self.faults, trafficStart: Self.start, drain: nil,
            drainMode: false)
        #expect(verdict.problems.isEmpty)
    }

    @Test("an acked message missing from the database fails the run, whatever the exit code")
    func missingAck() {
        let lost: JSONValue = [
            "gaps": 0, "duplicates": 0, "lost_acks": 1, "verified_in_database": 39_999, "database_checked": true,
            "failures": 1, "errors": [:],
        ]
        for exit: Int32 in [0, 1] {
            let problems = ChaosVerdict.judge(
                report: Self.report(correctness: lost), harnessExit: exit, faults: Self.faults,
                trafficStart: Self.start, drain: nil, drainMode: false
            ).problems
            #expect(
                problems == [
                    "the harness found correctness failures (exit \(exit)): {\"gaps\": 0, \"duplicates\": 0, "
                        + "\"lost_acks\": 1, \"verified_in_database\": 39999, \"database_checked\": true, "
                        + "\"failures\": 1, \"errors\": {}}"
                ])
        }
    }

    @Test("no database check, a failing harness exit, no report and stalled deliveries each fail")
    func otherFailures() {
        let unchecked: JSONValue = ["failures": 0, "database_checked": false]
        #expect(
            ChaosVerdict.judge(
                report: Self.report(correctness: unchecked), harnessExit: 0, faults: Self.faults,
                trafficStart: Self.start, drain: nil, drainMode: false
            ).problems == ["acked messages were not checked against the database"])
        #expect(
            ChaosVerdict.judge(
                report: Self.report(), harnessExit: 1, faults: Self.faults, trafficStart: Self.start, drain: nil,
                drainMode: false
            ).problems.count == 1)
        // Deliveries stop at second 30, before the SIGTERM at 32.
        #expect(
            ChaosVerdict.judge(
                report: Self.report(lastDelivery: 30), harnessExit: 0, faults: Self.faults, trafficStart: Self.start,
                drain: nil, drainMode: false
            ).problems == ["deliveries did not resume after the last fault"])
        let missing = ChaosVerdict.judge(
            report: [:], harnessExit: 1, faults: Self.faults, trafficStart: Self.start, drain: nil, drainMode: false
        ).problems
        #expect(missing.count == 2)
    }

    @Test("a drain fails unless every client got 1001, none lost its close frame and the exit was clean and in time")
    func drain() {
        let figures: JSONValue = [
            "connections": ["value": 5001], "lost_to_going_away": ["value": 5001],
            "lost_without_close_frame": ["value": 0],
        ]
        let good = DrainOutcome(exitSeconds: 0.98, exitCode: 0, connections: 5001)
        let passed = ChaosVerdict.judge(
            report: Self.report(figures: figures), harnessExit: 0, faults: Self.faults, trafficStart: Self.start,
            drain: good, drainMode: true)
        #expect(passed.problems.isEmpty)
        #expect(passed.drain?.clients == 5001 && passed.drain?.closedWith1001 == 5001)
        let cut: JSONValue = [
            "connections": ["value": 5001], "lost_to_going_away": ["value": 4990],
            "lost_without_close_frame": ["value": 11],
        ]
        #expect(
            ChaosVerdict.judge(
                report: Self.report(figures: cut), harnessExit: 0, faults: Self.faults, trafficStart: Self.start,
                drain: good, drainMode: true
            ).problems == ["drain: 4990 of 5001 clients got 1001, 11 lost without a close frame"])
        let slow = DrainOutcome(exitSeconds: 5.5, exitCode: 0, connections: 5001)
        #expect(
            ChaosVerdict.judge(
                report: Self.report(figures: figures), harnessExit: 0, faults: Self.faults, trafficStart: Self.start,
                drain: slow, drainMode: true
            ).problems == ["drain: exit code 0 after 5.5 s (grace 5 s)"])
        let killed = DrainOutcome(exitSeconds: 1, exitCode: -9, connections: 5001)
        #expect(
            ChaosVerdict.judge(
                report: Self.report(figures: figures), harnessExit: 0, faults: Self.faults, trafficStart: Self.start,
                drain: killed, drainMode: true
            ).problems.count == 1)
    }

    @Test("modes: sizes and schedules; explicit sizes win")
    func options() throws {
        let base = ["--bin", "b", "--database-url", "d", "--pgdata", "p", "--work", "w", "--out", "o"]
        let full = try ChaosOptions(arguments: base)
        #expect((full.sessions, full.rate, full.seconds) == (700, 2000, 95))
        #expect(full.schedule.map(\.at) == [8, 16, 26, 28, 40, 54, 88] && full.reportName == "chaos")
        // The receiver is down for a minute, through both gateway stops.
        #expect(full.schedule.filter(\.fault.isReceiver).map(\.at) == [28, 88] && full.webhooks)
        let quick = try ChaosOptions(arguments: base + ["--quick", "--rate", "500"])
        #expect((quick.sessions, quick.rate, quick.seconds) == (300, 500, 40))
        #expect(
            quick.schedule.map(\.fault) == [
                .terminate, .slow, .pgRestart, .receiverDown, .sigkill, .sigterm, .receiverUp,
            ])
        #expect(quick.schedule.filter(\.fault.isReceiver).map(\.at) == [18, 33] && quick.webhooks)
        let drain = try ChaosOptions(arguments: base + ["--drain"])
        #expect((drain.sessions, drain.rate, drain.seconds, drain.reportName) == (1667, 1000, 20, "drain"))
        #expect(drain.schedule.map(\.at) == [8] && drain.schedule[0].fault == .sigterm && !drain.webhooks)
        #expect(throws: DriverFlags.UsageError.self) { try ChaosOptions(arguments: base + ["--quick", "--drain"]) }
        #expect(throws: DriverFlags.UsageError.self) { try ChaosOptions(arguments: ["--quick"]) }
    }

    @Test("chaos.json has the Python driver's keys; the chart marks each fault")
    func reports() throws {
        let result = ChaosResult(
            options: ChaosOptions(), report: Self.report(), faults: Self.faults, problems: [], drain: nil)
        let json = ChaosReport.json(result)
        let parsed = try JSONParser.parse(json)
        #expect(parsed.objectValue?.keys == ["passed", "faults", "problems", "drain", "correctness", "figures"])
        #expect(parsed["faults"]?.arrayValue?.first?.objectValue?.keys == ["name", "at", "recovered_s", "note"])
        #expect(parsed["drain"] == .null)
        let html = ChaosReport.html(result)
        #expect(html.contains("<h1>Chaos run: <span class=\"badge pass\">passed</span></h1>"))
        #expect(html.contains("stroke-dasharray=\"4 3\""))
        #expect(html.contains(">terminate</text>") && html.contains(">sigterm</text>"))
        #expect(html.contains("<td>unavailable</td><td class=\"num\">12</td>"))
    }
}
