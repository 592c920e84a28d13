import SwitchboardJSON

/// What `loadtest bench-webhooks` measured: the receiver's own capacity,
/// delivery under the `conversations` load (a steady rate and more than the
/// machine stores), the writer with and without an endpoint in alternate
/// windows (and an A/A run), and whether every event arrived.
/// Written to results.json and rendered by `WebhooksSection`.
struct WebhooksResults {
    typealias Shape = (sessions: Int, operators: Int, rate: Int)

    var command: String
    var started: String
    var receiver: ReceiverCapacity?
    var deliveries: [DeliveryRun] = []
    var toggles: [ToggleRun] = []
    var correctness = WebhooksCorrectness()
    /// The interleaved runs' window and settling time.
    var windowSeconds: Double
    var settleSeconds: Double

    /// Runs whose checks failed, and the final check's failures.
    var failed: [String] {
        var labels = deliveries.filter { $0.passed != true || $0.badSignatures > 0 }.map(\.label)
        labels += toggles.filter { $0.passed != true }.map(\.label)
        if !correctness.passed { labels.append("correctness") }
        if let receiver, receiver.requests == 0 || receiver.errors > 0 { labels.append("receiver-capacity") }
        return labels
    }

    var json: JSONValue {
        let meta: JSONValue = [
            "started": .string(started), "command": .string(command), "window_s": .double(windowSeconds),
            "settle_s": .double(settleSeconds),
        ]
        return [
            "meta": meta, "receiver": receiver?.json ?? .null, "deliveries": .array(deliveries.map(\.json)),
            "toggles": .array(toggles.map(\.json)), "correctness": correctness.json,
        ]
    }
}

/// `loadtest webhook-sender` against a receiver alone: what one core of receiver sustains.
struct ReceiverCapacity {
    var connections: Int
    var requests = 0
    var seconds = 0.0
    var errors = 0
    var receiverCPUSeconds = 0.0

    var perSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
    /// The receiver's CPU per webhook, in microseconds.
    var microsPerRequest: Double { requests > 0 ? receiverCPUSeconds / Double(requests) * 1e6 : .nan }

    var json: JSONValue {
        [
            "connections": .int(connections), "requests": .int(requests),
            "seconds": .double(PythonFormat.round(seconds, 3)), "per_s": .double(PythonFormat.round(perSecond, 1)),
            "errors": .int(errors), "receiver_cpu_s": .double(PythonFormat.round(receiverCPUSeconds, 3)),
            "receiver_us_per_request": .optional(microsPerRequest),
        ]
    }
}

/// One `conversations` run with an endpoint subscribed to `message.created`:
/// what was stored and what the receiver accepted per second over the same
/// window of the traffic, the outbox's depth at its ends, and the latency
/// from each event's `created_at` to its delivery.
struct DeliveryRun {
    var label: String
    var shape: WebhooksResults.Shape
    var seconds: Int
    var passed: Bool?
    /// The harness's stored-and-acked messages/s (after its warm-up).
    var harnessStoredPerSecond: Double?
    /// The window of the traffic the rates cover (seconds), and the rates over it.
    var windowSeconds = 0.0
    var storedPerSecond: Double?
    var deliveredPerSecond: Double?
    /// Pending deliveries at the window's start and end, and the most seen.
    var pendingStart: Int?
    var pendingEnd: Int?
    var pendingPeak: Int?
    /// Pending deliveries when the harness ended, and the seconds from then until none was (nil: not drained).
    var pendingAfter: Int?
    var drainSeconds: Double?

    /// Deliveries per second while the outbox drained, the chat load gone.
    var drainPerSecond: Double? {
        guard let pendingAfter, let drainSeconds, drainSeconds > 0, pendingAfter > 0 else { return nil }
        return Double(pendingAfter) / drainSeconds
    }
    var latencyCount = 0
    var latencyP50Ms, latencyP90Ms, latencyP99Ms, latencyMaxMs: Double?
    var delivered = 0
    var duplicates = 0
    var retries = 0
    var badSignatures = 0
    /// The harness's send-to-delivery p99 (WebSocket), for comparison.
    var chatP99Ms: Double?
    /// CPU over the traffic's window (storing and delivering) and over the
    /// drain after it (delivering, and whatever else catches up then).
    var trafficCost: Cost?
    var drainCost: Cost?

    /// CPU-seconds of each process over a stretch, and the deliveries the receiver accepted in it.
    struct Cost {
        var deliveries: Int
        var cpu: (gateway: Double, postgres: Double, receiver: Double)
        /// PostgreSQL's CPU-seconds by role (`BackendCPU`), when watched.
        var postgresByRole: [String: Double] = [:]

        /// Microseconds of each process's CPU per delivery (nil without deliveries).
        var perDelivery: (gateway: Double, postgres: Double, receiver: Double)? {
            guard deliveries > 0 else { return nil }
            let scale = 1e6 / Double(deliveries)
            return (cpu.gateway * scale, cpu.postgres * scale, cpu.receiver * scale)
        }

        var json: JSONValue {
            [
                "deliveries": .int(deliveries), "gateway_cpu_s": .double(PythonFormat.round(cpu.gateway, 3)),
                "postgres_cpu_s": .double(PythonFormat.round(cpu.postgres, 3)),
                "receiver_cpu_s": .double(PythonFormat.round(cpu.receiver, 3)),
                "postgres_cpu_s_by_role": .numbers(postgresByRole),
            ]
        }

        /// "role N us, ..." per delivery, the costliest first.
        var rolesPerDelivery: String {
            guard deliveries > 0 else { return "" }
            return postgresByRole.sorted { $0.value > $1.value }.map {
                "\($0.key) \(PythonFormat.fixed($0.value * 1e6 / Double(deliveries), 0)) us"
            }.joined(separator: ", ")
        }
    }

    /// The outbox's growth over the window, per second of it.
    var growthPerSecond: Double? {
        guard let pendingStart, let pendingEnd, windowSeconds > 0 else { return nil }
        return Double(pendingEnd - pendingStart) / windowSeconds
    }

    /// Delivery kept up: over the window the outbox grew by less than one
    /// second of stored messages (a queue of constant depth is keeping up).
    var keepsUp: Bool? {
        guard let pendingStart, let pendingEnd, let storedPerSecond else { return nil }
        return Double(pendingEnd - pendingStart) <= max(storedPerSecond, 100)
    }

    var json: JSONValue {
        [
            "label": .string(label), "sessions": .int(shape.sessions), "operators": .int(shape.operators),
            "rate": .int(shape.rate), "seconds": .int(seconds), "passed": .optional(passed),
            "harness_stored_per_s": .optional(harnessStoredPerSecond),
            "window_s": .double(PythonFormat.round(windowSeconds, 2)),
            "stored_per_s": .optional(storedPerSecond.map { PythonFormat.round($0, 1) }),
            "delivered_per_s": .optional(deliveredPerSecond.map { PythonFormat.round($0, 1) }),
            "pending_start": .optional(pendingStart), "pending_end": .optional(pendingEnd),
            "pending_peak": .optional(pendingPeak), "pending_after": .optional(pendingAfter),
            "drain_s": .optional(drainSeconds),
            "drain_per_s": .optional(drainPerSecond.map { PythonFormat.round($0, 1) }),
            "keeps_up": .optional(keepsUp),
            "latency_ms": [
                "count": .int(latencyCount), "p50": .optional(latencyP50Ms), "p90": .optional(latencyP90Ms),
                "p99": .optional(latencyP99Ms), "max": .optional(latencyMaxMs),
            ],
            "delivered": .int(delivered), "duplicates": .int(duplicates), "retries": .int(retries),
            "bad_signatures": .int(badSignatures), "chat_p99_ms": .optional(chatP99Ms),
            "traffic_cost": trafficCost?.json ?? .null, "drain_cost": drainCost?.json ?? .null,
        ]
    }
}

/// One `conversations` run over more than the machine stores, split into
/// windows of the wall clock taken A B B A ...: with `switching`, the
/// endpoint is disabled in the A windows and enabled in the B windows (an
/// A/B run); without, it stays disabled (an A/A run: the method's noise).
struct ToggleRun {
    struct Window {
        var side: AlternatingWindows.Side
        /// Measured from the end of the settling time to the window's end.
        var seconds: Double
        var stored: Double
        var gatewayCPUSeconds: Double
        var postgresCPUSeconds: Double
        var pendingEnd: Int?

        var json: JSONValue {
            [
                "side": .string(side == .a ? "A" : "B"), "seconds": .double(PythonFormat.round(seconds, 3)),
                "stored": .double(stored), "gateway_cpu_s": .double(PythonFormat.round(gatewayCPUSeconds, 3)),
                "postgres_cpu_s": .double(PythonFormat.round(postgresCPUSeconds, 3)),
                "pending_end": .optional(pendingEnd),
            ]
        }
    }

    /// One side's windows together.
    struct Side {
        var windows = 0
        var seconds = 0.0
        var stored = 0.0
        var gatewayCPUSeconds = 0.0
        var postgresCPUSeconds = 0.0
        var pendingEnds: [Int] = []

        var storedPerSecond: Double { seconds > 0 ? stored / seconds : .nan }
        var gatewayMicrosPerMessage: Double { stored > 0 ? gatewayCPUSeconds / stored * 1e6 : .nan }
        var postgresMicrosPerMessage: Double { stored > 0 ? postgresCPUSeconds / stored * 1e6 : .nan }

        var json: JSONValue {
            [
                "windows": .int(windows), "seconds": .double(PythonFormat.round(seconds, 3)), "stored": .double(stored),
                "stored_per_s": .optional(storedPerSecond), "gateway_us_per_msg": .optional(gatewayMicrosPerMessage),
                "postgres_us_per_msg": .optional(postgresMicrosPerMessage),
                "pending_ends": .array(pendingEnds.map { .int($0) }),
            ]
        }
    }

    var label: String
    var switching: Bool
    var shape: WebhooksResults.Shape
    var seconds: Int
    var passed: Bool?
    var windows: [Window] = []
    /// The harness's send-to-delivery p99 in the A and the B windows.
    var aP99Ms, bP99Ms: Double?

    func side(_ side: AlternatingWindows.Side) -> Side {
        var total = Side()
        for window in windows where window.side == side {
            total.windows += 1
            total.seconds += window.seconds
            total.stored += window.stored
            total.gatewayCPUSeconds += window.gatewayCPUSeconds
            total.postgresCPUSeconds += window.postgresCPUSeconds
            if let pending = window.pendingEnd { total.pendingEnds.append(pending) }
        }
        return total
    }

    /// The B windows' stored messages/s over the A windows', minus one.
    var change: Double {
        let a = side(.a).storedPerSecond
        let b = side(.b).storedPerSecond
        return a > 0 && a.isFinite && b.isFinite ? b / a - 1 : .nan
    }

    var json: JSONValue {
        [
            "label": .string(label), "switching": .bool(switching), "sessions": .int(shape.sessions),
            "operators": .int(shape.operators), "rate": .int(shape.rate), "seconds": .int(seconds),
            "passed": .optional(passed), "a": side(.a).json, "b": side(.b).json,
            "change": .optional(change.isNaN ? nil : change), "a_p99_ms": .optional(aP99Ms),
            "b_p99_ms": .optional(bP99Ms), "windows": .array(windows.map(\.json)),
        ]
    }
}

/// The end of the bench: with the outbox drained, every `message.created`
/// event written arrived at the receiver (with a good signature) at least once.
struct WebhooksCorrectness {
    var drained = false
    var events: Int?
    var accepted = 0
    var missing = 0
    var missingSample: [String] = []
    var duplicates = 0
    var badSignatures = 0
    var failedDeliveries: Int?

    var passed: Bool {
        drained && events != nil && missing == 0 && badSignatures == 0 && (failedDeliveries ?? 1) == 0
    }

    var json: JSONValue {
        [
            "passed": .bool(passed), "drained": .bool(drained), "events": .optional(events),
            "accepted": .int(accepted), "missing": .int(missing),
            "missing_sample": .array(missingSample.map(JSONValue.string)), "duplicates": .int(duplicates),
            "bad_signatures": .int(badSignatures), "failed_deliveries": .optional(failedDeliveries),
        ]
    }
}
