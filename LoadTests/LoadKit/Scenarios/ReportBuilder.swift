/// Merges the shards' measurements into the scenario's report: figures,
/// latencies, timeline, correctness and targets.
struct ReportBuilder {
    let options: LoadOptions
    let outcomes: [ShardOutcome]
    let startedAt: String

    private var shards: [Shard] { outcomes.map(\.shard) }

    private func sum(_ value: (Shard) -> Int) -> Int { shards.reduce(0) { $0 + value($1) } }

    private var isCluster: Bool { options.endpoints.count > 1 }

    /// Connections per node, over every shard, in `--url` order.
    private var connectionsPerNode: [Int] {
        var total = Array(repeating: 0, count: options.endpoints.count)
        for outcome in outcomes {
            for (node, count) in outcome.connectionsPerNode.enumerated() where node < total.count {
                total[node] += count
            }
        }
        return total
    }

    /// The connections `--gateway-pid`'s process holds: in a cluster only the
    /// first node's, since one process's memory holds only its own.
    private var probedConnections: Int {
        isCluster ? connectionsPerNode[0] : outcomes.reduce(0) { $0 + $1.connections }
    }

    private func merged(_ recorder: (Shard) -> LatencyRecorder) -> LatencyRecorder {
        var total = LatencyRecorder()
        for shard in shards { total.merge(recorder(shard)) }
        return total
    }

    func build() -> RunReport {
        var report = RunReport(scenario: options.scenario, parameters: options.displayed, startedAt: startedAt)
        if isCluster {
            report.nodes = zip(options.endpoints, connectionsPerNode).map {
                NodeShare(url: $0.url, connections: $1)
            }
        }
        var timeline = Timeline(start: shards[0].timeline.start)
        var correctness = Correctness()
        for shard in shards {
            timeline.merge(shard.timeline)
            let part = shard.correctness()
            correctness.gaps += part.gaps
            correctness.duplicates += part.duplicates
            correctness.reorders += part.reorders
            correctness.unanswered += part.unanswered
            correctness.lostAcks += part.lostAcks
            correctness.unexpectedCloses += part.unexpectedCloses
            correctness.errors.merge(part.errors, uniquingKeysWith: +)
        }
        report.timeline = timeline.points
        report.correctness = correctness
        report.notes = shards.flatMap(\.notes).sorted()
        if isCluster && options.gatewayPID > 0 {
            report.notes.append(
                "gateway RSS and CPU are process \(options.gatewayPID)'s alone, read as the first node's "
                    + "(\(options.endpoints[0].url))")
        }
        if outcomes.contains(where: { !$0.drained }) {
            report.notes.append("the drain deadline (\(options.drainSeconds) s) passed before every send was answered")
        }
        switch options.scenario {
        case "idle": addIdle(&report)
        case "storm": addTraffic(&report); addStorm(&report)
        case "ramp": addRamp(&report)
        default: addTraffic(&report)
        }
        addReconnections(&report)
        addReads(&report)
        return report
    }

    /// With `--reads`: the positions sent, and those the gateway refused.
    private func addReads(_ report: inout RunReport) {
        guard options.sendsReads else { return }
        report.figures += [
            Figure(key: "reads_sent", label: "reads sent", value: Double(sum(\.readsSent)), unit: ""),
            Figure(key: "reads_refused", label: "reads refused", value: Double(sum(\.readsRefused)), unit: ""),
        ]
    }

    /// Only when a connection was lost mid-run (a node going away, a dropped
    /// socket) or a rejoin's replay repeated itself: a run without either
    /// reports exactly what it always did.
    private func addReconnections(_ report: inout RunReport) {
        let replayed = shards.reduce(0) { total, shard in
            shard.participants.reduce(total) { $0 + $1.tracker.replayedAgain }
        }
        if replayed > 0 {
            report.notes.append(
                "\(replayed) seqs a rejoin's replay brought again were ones the participant had (not counted as deliveries)"
            )
        }
        guard sum(\.connectionsLost) > 0 else { return }
        report.figures += [
            Figure(
                key: "reconnections_after_close", label: "reconnections after a close",
                value: Double(sum(\.reconnectionsAfterClose)), unit: ""),
            Figure(
                key: "resent_after_reconnect", label: "sends re-sent after a reconnect",
                value: Double(sum(\.resentAfterReconnect)), unit: ""),
            Figure(
                key: "lost_to_going_away", label: "connections closed with 1001 (going away)",
                value: Double(sum(\.lostToGoingAway)), unit: ""),
            Figure(
                key: "lost_without_close_frame", label: "connections ended without a close frame",
                value: Double(sum(\.lostWithoutCloseFrame)), unit: ""),
        ]
        let duplicates = sum(\.duplicateAcksOfRetries)
        if duplicates > 0 {
            report.notes.append(
                "\(duplicates) re-sent sends were acked as duplicates: stored before the close, their first ack lost with it"
            )
        }
    }

    private var p99Target: Double {
        if options.targetP99Milliseconds > 0 { return options.targetP99Milliseconds }
        return options.scenario == "fanout"
            ? ScenarioTargets.fanoutP99Milliseconds : ScenarioTargets.conversationsP99Milliseconds
    }

    private func addTraffic(_ report: inout RunReport) {
        let measuredAcks = sum(\.measuredAcks)
        let measuredDeliveries = sum(\.measuredDeliveries)
        let from = outcomes.map(\.measureFrom).min() ?? 0
        let lastAck = shards.map(\.lastAckAt).max() ?? 0
        let lastDelivery = shards.map(\.lastDeliveryAt).max() ?? 0
        let ackSpan = lastAck > from ? Double(lastAck - from) / 1e9 : 0
        let deliverySpan = lastDelivery > from ? Double(lastDelivery - from) / 1e9 : 0
        let stored = ackSpan > 0 ? Double(measuredAcks) / ackSpan : 0
        let deliveries = deliverySpan > 0 ? Double(measuredDeliveries) / deliverySpan : 0
        report.durationSeconds = max(ackSpan, deliverySpan)
        let deliveryKey = options.scenario == "fanout" ? "deliveries_per_second" : "delivered_per_second"
        report.figures += [
            Figure(key: "stored_per_second", label: "stored and acked messages/s", value: stored, unit: "msg/s"),
            Figure(key: deliveryKey, label: "deliveries/s", value: deliveries, unit: "deliveries/s"),
            Figure(key: "offered_rate", label: "offered rate", value: options.rate, unit: "msg/s"),
            Figure(key: "sent", label: "messages sent", value: Double(sum(\.sent)), unit: ""),
            Figure(key: "acked", label: "messages acked", value: Double(sum(\.acked)), unit: ""),
            Figure(key: "deliveries", label: "deliveries", value: Double(sum(\.delivered)), unit: ""),
            Figure(
                key: "connections", label: "connections", value: Double(outcomes.reduce(0) { $0 + $1.connections }),
                unit: ""),
            Figure(
                key: "harness_max_lag_ms", label: "harness lag behind schedule (max)",
                value: Double(shards.map(\.maxLagNanoseconds).max() ?? 0) / 1e6, unit: "ms"),
        ]
        addGatewayCPU(&report)
        if sum(\.skippedSends) > 0 {
            report.notes.append("\(sum(\.skippedSends)) scheduled sends were skipped: their sender was not connected")
        }
        let ack = merged(\.ackLatency).summary(key: "send_to_ack", label: "send to ack")
        let delivery = merged(\.deliveryLatency).summary(key: "send_to_delivery", label: "send to delivery")
        report.latencies += [ack, delivery]
        if options.alternateSeconds > 0 {
            let window = ReportNumberFormat.trimmed(options.alternateSeconds, maxDecimals: 2)
            report.latencies += [
                merged(\.sideADeliveryLatency).summary(
                    key: "send_to_delivery_a", label: "send to delivery, \(window)-s windows A"),
                merged(\.sideBDeliveryLatency).summary(
                    key: "send_to_delivery_b", label: "send to delivery, \(window)-s windows B"),
            ]
        }
        switch options.scenario {
        case "conversations":
            report.targets += [
                .atLeast(
                    "stored_per_second", "stored messages/s", value: stored, goal: options.targetRate, unit: "msg/s"),
                p99Check(delivery),
            ]
        case "fanout":
            report.targets += [
                .atLeast(
                    "deliveries_per_second", "deliveries/s", value: deliveries, goal: options.targetDeliveries,
                    unit: "deliveries/s"),
                p99Check(delivery),
            ]
        default:
            break
        }
    }

    private func p99Check(_ delivery: LatencySummary) -> TargetCheck {
        .under(
            "send_to_delivery_p99_ms", "p99 send to delivery", value: delivery.p99, goal: p99Target, unit: "ms",
            measured: delivery.count > 0)
    }

    private func addGatewayCPU(_ report: inout RunReport) {
        guard let outcome = outcomes.first, let cpu = outcome.gatewayCPUSeconds, outcome.cpuWallSeconds > 0 else {
            return
        }
        report.figures.append(
            Figure(
                key: "gateway_cpu_cores", label: "gateway CPU (cores busy)", value: cpu / outcome.cpuWallSeconds,
                unit: "cores"))
        if let harness = outcome.harnessCPUSeconds {
            report.figures.append(
                Figure(
                    key: "harness_cpu_cores", label: "harness CPU (cores busy)",
                    value: harness / outcome.cpuWallSeconds, unit: "cores"))
        }
    }

    private func addIdle(_ report: inout RunReport) {
        let connections = outcomes.reduce(0) { $0 + $1.connections }
        let connectSeconds = outcomes.map(\.connectSeconds).max() ?? 0
        report.figures.append(
            Figure(key: "connections", label: "connections held", value: Double(connections), unit: ""))
        report.figures.append(
            Figure(
                key: "connect_rate", label: "set-up rate",
                value: connectSeconds > 0 ? Double(connections) / connectSeconds : 0, unit: "conn/s"))
        let held = probedConnections
        if let before = outcomes[0].rssBeforeKiB, let after = outcomes[0].rssAfterKiB, held > 0 {
            let perConnection = Double(after - before) * 1024 / Double(held)
            report.figures += [
                Figure(
                    key: "bytes_per_connection", label: "gateway RSS per connection", value: perConnection,
                    unit: "bytes"),
                Figure(key: "rss_before_kib", label: "gateway RSS before", value: Double(before), unit: "KiB"),
                Figure(
                    key: "rss_after_kib", label: "gateway RSS with every connection", value: Double(after), unit: "KiB"),
            ]
            var check = TargetCheck.under(
                "bytes_per_connection", "gateway memory per idle connection", value: perConnection,
                goal: options.targetBytesPerConnection, unit: "B")
            check.target += " at \(ReportNumberFormat.grouped(ScenarioTargets.idleConnections)) connections"
            check.measured += " at \(ReportNumberFormat.grouped(held)) connections"
            if isCluster { check.measured += " (the first node's)" }
            if held < ScenarioTargets.idleConnections { check.measured += " (fewer than the target's)" }
            report.targets.append(check)
        } else {
            report.notes.append("no gateway memory reading (pass --gateway-pid)")
        }
        report.latencies.append(merged(\.handshakeLatency).summary(key: "handshake", label: "connect to welcome"))
    }

    private func addStorm(_ report: inout RunReport) {
        let connections = outcomes.reduce(0) { $0 + $1.connections }
        let reconnections = outcomes.reduce(0) { $0 + $1.reconnections }
        let connectSeconds = outcomes.map(\.connectSeconds).max() ?? 0
        let reconnectSeconds = outcomes.map(\.reconnectSeconds).max() ?? 0
        report.figures += [
            Figure(
                key: "connect_rate", label: "connections ready/s (all at once)",
                value: connectSeconds > 0 ? Double(connections) / connectSeconds : 0, unit: "conn/s"),
            Figure(
                key: "reconnect_rate", label: "rejoins/s (every operator at once)",
                value: reconnectSeconds > 0 ? Double(reconnections) / reconnectSeconds : 0, unit: "conn/s"),
            Figure(
                key: "reconnections", label: "operators dropped and rejoined", value: Double(reconnections), unit: ""),
        ]
        report.latencies += [
            merged(\.handshakeLatency).summary(key: "handshake", label: "connect to welcome"),
            merged(\.reconnectLatency).summary(key: "reconnect", label: "reconnect to welcome"),
        ]
        let reconnectRate = reconnectSeconds > 0 ? Double(reconnections) / reconnectSeconds : 0
        report.targets.append(
            .reported(
                "connect_rate", "connect rate", value: connectSeconds > 0 ? Double(connections) / connectSeconds : 0,
                unit: "conn/s", note: "; reconnect \(ReportNumberFormat.grouped(Int(reconnectRate))) conn/s"))
    }

    private func addRamp(_ report: inout RunReport) {
        let steps = outcomes[0].rampSteps
        let best = steps.last(where: \.passed)?.rate ?? 0
        report.figures.append(
            Figure(key: "highest_sustained_rate", label: "highest sustained rate", value: best, unit: "msg/s"))
        report.targets.append(
            .reported(
                "highest_sustained_rate", "highest rate sustained within the p99 bound", value: best, unit: "msg/s"))
        report.figures.append(Figure(key: "acked", label: "messages acked", value: Double(sum(\.acked)), unit: ""))
        report.durationSeconds = Double(steps.count) * options.stepSeconds
        for step in steps {
            report.notes.append(
                "step \(Int(step.rate)) msg/s: sent \(step.sent), acked \(step.acked), p99 delivery \(step.p99Milliseconds) ms: "
                    + (step.passed ? "sustained" : "not sustained"))
        }
        report.latencies.append(
            merged(\.deliveryLatency).summary(key: "send_to_delivery", label: "send to delivery (all steps)"))
    }
}
