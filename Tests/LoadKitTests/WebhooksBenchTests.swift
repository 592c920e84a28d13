import Glibc
import SwitchboardJSON
import Testing

@testable import LoadKit

@Suite("bench-webhooks and the chaos run's webhooks")
struct WebhooksBenchTests {
    static let heading = ["## TITLE", "", "Run NOW on HERE."]

    static func toggle(_ label: String, switching: Bool, a: Double, b: Double) -> ToggleRun {
        var run = ToggleRun(label: label, switching: switching, shape: (500, 2, 40000), seconds: 100)
        run.passed = true
        run.aP99Ms = 1200
        run.bP99Ms = 1300
        // A B B A: each window 8 s measured, the gateway 0.8 core, PostgreSQL 0.9.
        for (side, perSecond) in [(AlternatingWindows.Side.a, a), (.b, b), (.b, b), (.a, a)] {
            run.windows.append(
                ToggleRun.Window(
                    side: side, seconds: 8, stored: perSecond * 8, gatewayCPUSeconds: 6.4, postgresCPUSeconds: 7.2,
                    pendingEnd: side == .a ? 0 : 120))
        }
        return run
    }

    static func results() -> WebhooksResults {
        var results = WebhooksResults(
            command: "scripts/bench-webhooks", started: "2026-11-25 12:00 UTC", windowSeconds: 10, settleSeconds: 2)
        var receiver = ReceiverCapacity(connections: 8)
        receiver.requests = 250_000
        receiver.seconds = 5
        receiver.receiverCPUSeconds = 4
        results.receiver = receiver
        var steady = DeliveryRun(label: "steady", shape: (500, 2, 2000), seconds: 30)
        steady.passed = true
        steady.windowSeconds = 27
        steady.storedPerSecond = 2000
        steady.deliveredPerSecond = 1999.5
        steady.pendingStart = 3
        steady.pendingEnd = 2
        steady.pendingPeak = 9
        steady.drainSeconds = 0.25
        steady.latencyP50Ms = 3.25
        steady.latencyP90Ms = 5
        steady.latencyP99Ms = 12.5
        steady.latencyMaxMs = 40
        steady.chatP99Ms = 9
        var capacity = steady
        capacity.label = "capacity"
        capacity.shape = (500, 2, 40000)
        capacity.storedPerSecond = 18000
        capacity.deliveredPerSecond = 12000
        capacity.pendingStart = 1000
        capacity.pendingEnd = 160_000
        capacity.drainSeconds = 14
        capacity.pendingAfter = 168_000
        results.deliveries = [steady, capacity]
        results.toggles = [
            toggle("with-without-1", switching: true, a: 18000, b: 16560),
            toggle("aa-1", switching: false, a: 18000, b: 18180),
        ]
        results.correctness = WebhooksCorrectness(
            drained: true, events: 1_000_000, accepted: 1_000_000, missing: 0, missingSample: [], duplicates: 3,
            badSignatures: 0, failedDeliveries: 0)
        return results
    }

    @Test("the section: the receiver, delivery against storage, the writer with and without, nothing lost")
    func section() {
        let text = WebhooksSection.render(Self.results(), heading: Self.heading)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines[0..<4]) == Self.heading + [""])
        #expect(
            WebhooksSection.render(Self.results()).hasPrefix(
                "## Webhooks: delivery to a local receiver, and what the outbox costs the writer "
                    + "(scripts/bench-webhooks)\n\nRun "))
        #expect(
            text.contains(
                "8 keep-alive connections on core 0, one signed webhook in flight on each): 50,000 webhooks/s, 16.0 µs")
        )
        #expect(
            lines.contains(
                "| steady | 2,000 | 2,000 | 2,000 | yes | 3 / 2 / 9 | 0.2 s | 3.2 / 5.0 / 12.5 / 40.0 ms | 9.0 ms | 0 / 0 / 0 | passed |"
            ))
        #expect(
            lines.contains(
                "| capacity | 40,000 | 18,000 | 12,000 | **no** | 1,000 / 160,000 / 9 | 14.0 s (12,000/s) | 3.2 / 5.0 / 12.5 / 40.0 ms | 9.0 ms | 0 / 0 / 0 | passed |"
            ))
        #expect(
            text.contains(
                "**target missed**: in the capacity run the outbox grew (12,000 delivered/s for 18,000 stored/s at 40,000 msg/s offered)"
            ))
        // 16 s per side: 0.8 core for 18,000 msg/s is 44.4 µs per message; PostgreSQL 50.0.
        #expect(
            lines.contains(
                "| with-without-1 | A (disabled) | 2 | 18,000 |  | 44.4 | 50.0 | 1200.0 ms | 0, 0 | passed |"))
        #expect(
            lines.contains(
                "| with-without-1 | B (enabled) | 2 | 16,560 | -8% | 48.3 | 54.3 | 1300.0 ms | 120, 120 | passed |"))
        #expect(
            lines.contains("| aa-1 | B (disabled) | 2 | 18,180 | +1% | 44.0 | 49.5 | 1300.0 ms | 120, 120 | passed |"))
        #expect(
            text.contains(
                "the writer stored -8% against disabled; the A/A runs' two sides differed by +1% (**target met**: within 10%, with the A/A runs within 10% too)"
            ))
        #expect(text.contains("1,000,000 `message.created` events written, 1,000,000 accepted"))
        #expect(text.contains("0 missing, 0 bad signatures, 3 duplicates"))
        #expect(text.hasSuffix("**passed**.\n"))
        #expect(Self.results().failed.isEmpty)
        // An event lost, or an A/A run that cannot resolve 10%.
        var lost = Self.results()
        lost.correctness.missing = 2
        lost.correctness.missingSample = ["evt_a", "evt_b"]
        lost.toggles[1] = Self.toggle("aa-1", switching: false, a: 18000, b: 21000)
        let again = WebhooksSection.render(lost, heading: Self.heading)
        #expect(again.contains("2 missing (evt_a, evt_b, ...)") && again.hasSuffix("**FAILED**.\n"))
        #expect(again.contains("**target met**, but an A/A run differed by 10% or more"))
        #expect(lost.failed == ["correctness"])
        let json = lost.json
        #expect(json["toggles"]?.arrayValue?.first?["a"]?["stored_per_s"]?.doubleValue == 18000)
        #expect(json["correctness"]?["passed"]?.boolValue == false)
        #expect(json["deliveries"]?.arrayValue?.last?["keeps_up"]?.boolValue == false)
    }

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    @Test("rates and CPU per delivery come from the traffic's steady part of the samples")
    func rates() throws {
        // Set-up (nothing stored) for 2 s, then 1,000 msg/s for 10 s with delivery 100/s behind, then the drain.
        var samples: [WebhooksBench.Sample] = []
        for second in 0...15 {
            let t = Double(second)
            let storing = min(max(t - 2, 0), 10)
            // Each process's CPU grows by its share of a second: 0.3 gateway, 0.4 postgres (one pid), 0.1 receiver.
            samples.append(
                WebhooksBench.Sample(
                    at: t, stored: 500 + storing * 1000, delivered: Int(storing * 900),
                    pending: Int(storing * 100),
                    cpu: WebhooksBench.ProcessesCPU(
                        gateway: 0.3 * t, postgres: [7: Int(0.4 * t * Self.ticksPerSecond)], receiver: 0.1 * t)))
        }
        var run = DeliveryRun(label: "x", shape: (1, 2, 1000), seconds: 10)
        WebhooksBench.rates(samples, into: &run)
        // The counter first grew at 3 s; from 5 s (2 s later) to 12 s, its last growth.
        #expect(run.windowSeconds == 7)
        #expect(run.storedPerSecond == 1000)
        #expect(run.deliveredPerSecond == 900)
        #expect(run.pendingStart == 300 && run.pendingEnd == 1000 && run.pendingPeak == 1000)
        #expect(run.keepsUp == true)
        // CPU per delivery over the same window: 6,300 deliveries in 7 s.
        let cost = try #require(run.trafficCost)
        #expect(cost.deliveries == 6300)
        let each = try #require(cost.perDelivery)
        #expect(abs(each.gateway - 0.3 * 7 / 6300 * 1e6) < 0.01 && abs(each.receiver - 0.1 * 7 / 6300 * 1e6) < 0.01)
        #expect(abs(each.postgres - 0.4 * 7 / 6300 * 1e6) < 0.01)
        #expect(DeliveryRun.Cost(deliveries: 0, cpu: (1, 1, 1)).perDelivery == nil)
        run.pendingEnd = 1301
        #expect(run.keepsUp == false)
        // The outbox probed every third second only (`OutboxProbe` spacing probes by their cost): each end
        // of the window takes the probe nearest in time (6 s for 5 s, 12 s for 12 s).
        var sparse = samples
        for index in sparse.indices where index % 3 != 0 { sparse[index].pending = nil }
        var sparseRun = DeliveryRun(label: "z", shape: (1, 2, 1000), seconds: 10)
        WebhooksBench.rates(sparse, into: &sparseRun)
        #expect(sparseRun.pendingStart == 400 && sparseRun.pendingEnd == 1000 && sparseRun.pendingPeak == 1000)
        #expect(sparseRun.storedPerSecond == 1000)
        // One probe nearest to both ends: the outbox's growth is unknown, and so is whether delivery kept up.
        var once = samples
        for index in once.indices where index != 9 { once[index].pending = nil }
        var onceRun = DeliveryRun(label: "o", shape: (1, 2, 1000), seconds: 10)
        WebhooksBench.rates(once, into: &onceRun)
        #expect(onceRun.pendingStart == 700 && onceRun.pendingEnd == nil && onceRun.keepsUp == nil)
        var empty = DeliveryRun(label: "y", shape: (1, 2, 1), seconds: 1)
        WebhooksBench.rates([], into: &empty)
        #expect(empty.storedPerSecond == nil && empty.keepsUp == nil)
    }

    @Test("a window run sums each side; CPU counts processes alive at both readings")
    func toggles() {
        let run = Self.toggle("t", switching: true, a: 1000, b: 900)
        #expect(run.side(.a).windows == 2 && run.side(.a).seconds == 16)
        #expect(run.side(.b).storedPerSecond == 900)
        #expect((run.change + 0.1).magnitude < 1e-9)
        #expect(run.side(.b).pendingEnds == [120, 120])
        #expect(WebhooksBench.used(from: [1: 100, 2: 50], to: [1: 150, 3: 500]) * 100 == 50)
    }

    @Test("the endpoint's id and secret are read from the creation's answer, nested or not")
    func endpointAnswer() {
        #expect(
            WebhookAPI.parse(["id": "e1", "secret": "whsec_abc", "url": "http://x"])
                == WebhookEndpoint(id: "e1", secret: "whsec_abc"))
        #expect(
            WebhookAPI.parse(["endpoint": ["id": "e2", "url": "http://x"], "secret": "whsec_def"])
                == WebhookEndpoint(id: "e2", secret: "whsec_def"))
        #expect(WebhookAPI.parse(["webhook": ["id": "e3", "secret": "whsec_g"]])?.id == "e3")
        #expect(WebhookAPI.parse(["id": "e4", "secret": "plain"]) == nil)
        #expect(WebhookAPI.parse(["secret": "whsec_abc"]) == nil)
    }

    @Test("bench-webhooks' flags: sizes by mode, windows in fours")
    func flags() throws {
        let quick = try WebhooksDriver.parse(["--quick"])
        #expect(quick.seconds == 5 && quick.shape.rate == 1000 && quick.windows.count == 4)
        let full = try WebhooksDriver.parse(["--rate", "30000", "--windows", "12", "--window-seconds", "5"])
        #expect(full.shape.rate == 30000 && full.windows.count == 12 && full.windows.settle == 1.25)
        #expect(full.seconds == 30 && full.steadyShape.rate == 2000)
        #expect(throws: DriverFlags.UsageError.self) { try WebhooksDriver.parse(["--windows", "6"]) }
        #expect(throws: DriverFlags.UsageError.self) { try WebhooksDriver.parse(["--seconds", "2"]) }
        #expect(throws: DriverFlags.UsageError.self) { try WebhookReceiverDriver.parse(["80", "--secret", "x"]) }
        #expect(throws: DriverFlags.UsageError.self) {
            try WebhookReceiverDriver.parse(["80", "--fail-first", "2", "--status-sequence", "500"])
        }
        let receiver = try WebhookReceiverDriver.parse(["0", "--fail-first", "2", "--per-event", "--seconds", "1.5"])
        #expect(receiver.receiver.plan == WebhookStatusPlan(sequence: [500, 500], perEvent: true))
        #expect(receiver.seconds == 1.5 && receiver.receiver.port == 0)
    }

    @Test("chaos: every event written must have arrived, every message have its event")
    func chaosVerdict() {
        let journal = WebhookJournal(text: "evt_1 200 ok\nevt_2 200 ok\nevt_2 200 ok\n")
        let good = ChaosWebhooks.judge(
            eventIDs: ["evt_1", "evt_2"], reportable: 2, journal: journal, failed: 0, drainSeconds: 3.5)
        #expect(good.problems.isEmpty)
        #expect(good.outcome.duplicates == 1 && good.outcome.accepted == 2 && good.outcome.missing == 0)
        let lost = ChaosWebhooks.judge(
            eventIDs: ["evt_1", "evt_2", "evt_3"], reportable: 4, journal: journal, failed: 1, drainSeconds: nil)
        #expect(
            lost.problems == [
                "webhooks: the outbox did not drain (deliveries still pending)",
                "webhooks: 1 of 3 message.created events never arrived (evt_3)",
                "webhooks: 4 messages stored but 3 message.created events written",
                "webhooks: 1 deliveries failed for good",
            ])
        let forged = ChaosWebhooks.judge(
            eventIDs: ["evt_1"], reportable: 1, journal: WebhookJournal(text: "evt_1 401 bad\nevt_1 200 ok\n"),
            failed: 0, drainSeconds: 1)
        #expect(forged.problems == ["webhooks: 1 bad signatures"])
        #expect(ChaosWebhooks.scheduleText == "0.017, 1, 6, 24, 60, 120, 120 s")
        var result = ChaosResult(options: ChaosOptions(), report: [:], faults: [], problems: [], drain: nil)
        result.webhooks = good.outcome
        #expect(ChaosReport.json(result).contains(#""webhooks":{"events":2"#))
        #expect(ChaosReport.html(result).contains("<h2>Webhooks</h2>"))
    }
}
