/// docs/benchmarks.md, "Webhooks": how fast the dispatcher delivers to a
/// local receiver, whether it keeps up with the writer, how long an event
/// takes from its commit to its delivery, and what an endpoint costs the
/// writer (`loadtest bench-webhooks`).
enum WebhooksSection {
    static let targetChange = 0.10
    static let title =
        "Webhooks: delivery to a local receiver, and what the outbox costs the writer (scripts/bench-webhooks)"

    static func render(_ results: WebhooksResults, heading: [String] = BenchmarksDoc.heading(title)) -> String {
        func fixed(_ value: Double?, _ decimals: Int = 1) -> String {
            guard let value, value.isFinite else { return "n/a" }
            return PythonFormat.fixed(value, decimals)
        }
        func grouped(_ value: Double?) -> String {
            guard let value, value.isFinite else { return "n/a" }
            return PythonFormat.grouped(Int(value.rounded()))
        }
        func count(_ value: Int?) -> String { value.map { PythonFormat.grouped($0) } ?? "n/a" }
        var lines = heading + [""]
        lines += [
            "Command: `\(results.command)` (started \(results.started)). A gateway (one event loop) on core 0 with "
                + "`[webhooks] allow_private_targets = true` and the other webhook settings at their defaults, "
                + "PostgreSQL (durable) unpinned; the harness (`loadtest conversations`) and the receiver "
                + "(`loadtest webhook-receiver`: one epoll loop, keep-alive HTTP/1.1, every Standard Webhooks "
                + "signature checked) on core 1. One endpoint, made by an admin with `POST /api/v1/webhooks`, for "
                + "`message.created` in the workspace the harness writes to.",
            "",
        ]
        if let receiver = results.receiver {
            lines += [
                "The receiver alone (`loadtest webhook-sender`, \(receiver.connections) keep-alive connections on "
                    + "core 0, one signed webhook in flight on each): \(grouped(receiver.perSecond)) webhooks/s, "
                    + "\(fixed(receiver.microsPerRequest)) µs of the receiver's CPU per webhook"
                    + (receiver.errors > 0 ? " (**\(receiver.errors) errors**)" : "") + ".",
                "",
            ]
        }
        lines += [
            "Delivery under the `conversations` load (*steady*: a rate the gateway keeps up with; *capacity*: more "
                + "than it stores): stored messages/s (the sum of the workspace's sessions' `last_seq`, read from "
                + "PostgreSQL: the saturated gateway answers scrapes of its own counter after seconds) and webhooks accepted by the receiver per second over the "
                + "same steady part of the traffic (from 2 s after it began to its last stored message), the "
                + "outbox's depth (`webhook_deliveries` pending) at that part's start and end, the time it took to "
                + "drain after the harness ended (and the deliveries per second meanwhile, the chat load gone), and "
                + "the latency from each event's `created_at` (the writing "
                + "transaction's time, just before its commit, in milliseconds) to its first 2xx. *keeps up*: "
                + "the outbox grew by less than one second of stored messages over the traffic.",
            "",
            "| run | offered msg/s | stored msg/s | delivered/s | keeps up | outbox start / end / peak | drained after | "
                + "commit to delivery p50 / p90 / p99 / max | chat p99 | retries / duplicates / bad signatures | "
                + "checks |",
            "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |",
        ]
        for run in results.deliveries {
            let keeps = run.keepsUp.map { $0 ? "yes" : "**no**" } ?? "n/a"
            let passed = run.passed == true && run.badSignatures == 0
            lines.append(
                "| \(run.label) | \(PythonFormat.grouped(run.shape.rate)) | \(grouped(run.storedPerSecond)) | "
                    + "\(grouped(run.deliveredPerSecond)) | \(keeps) | \(count(run.pendingStart)) / "
                    + "\(count(run.pendingEnd)) / \(count(run.pendingPeak)) | "
                    + "\(run.drainSeconds.map { "\(fixed($0)) s" } ?? "**not drained**")"
                    + "\(run.drainPerSecond.map { " (\(grouped($0))/s)" } ?? "") | "
                    + "\(fixed(run.latencyP50Ms)) / \(fixed(run.latencyP90Ms)) / \(fixed(run.latencyP99Ms)) / "
                    + "\(fixed(run.latencyMaxMs)) ms | \(fixed(run.chatP99Ms)) ms | \(run.retries) / \(run.duplicates) / "
                    + "\(run.badSignatures) | \(passed ? "passed" : "**FAILED**") |")
        }
        lines += [
            "",
            "CPU per delivered webhook, in microseconds, from /proc (the gateway's process, every postgres process, "
                + "the receiver), over the same part of the traffic (where the gateway also stores and fans out "
                + "every message) and over the drain after it (delivering what was left, and whatever else "
                + "catches up then, such as the search indexer):",
            "",
            "| run | traffic: deliveries | gateway | PostgreSQL | receiver | drain: deliveries | gateway | PostgreSQL "
                + "| receiver |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        func cost(_ cost: DeliveryRun.Cost?) -> String {
            guard let cost, let each = cost.perDelivery else { return "\(count(cost?.deliveries)) | n/a | n/a | n/a" }
            return "\(PythonFormat.grouped(cost.deliveries)) | \(fixed(each.gateway)) | \(fixed(each.postgres)) | "
                + "\(fixed(each.receiver))"
        }
        for run in results.deliveries {
            lines.append("| \(run.label) | \(cost(run.trafficCost)) | \(cost(run.drainCost)) |")
        }
        let capacity = results.deliveries.first { $0.label == "capacity" }
        let deliveryVerdict: String
        if let capacity, let keeps = capacity.keepsUp {
            let figures =
                "\(grouped(capacity.deliveredPerSecond)) delivered/s for \(grouped(capacity.storedPerSecond)) stored/s "
                + "at \(PythonFormat.grouped(capacity.shape.rate)) msg/s offered"
            deliveryVerdict =
                keeps
                ? "**target met**: in the capacity run delivery kept up with the writer (\(figures))"
                : "**target missed**: in the capacity run the outbox grew (\(figures))"
        } else {
            deliveryVerdict = "**not shown**: the capacity run measured no steady part"
        }
        lines += ["", "Delivered/s against stored/s: \(deliveryVerdict)."]
        let window = PythonFormat.repr(results.windowSeconds)
        let settle = PythonFormat.repr(results.settleSeconds)
        lines += [
            "",
            "What an endpoint costs the writer, in one run: the same load in \(window)-s windows of the wall clock "
                + "taken A B B A (`loadtest --alternate \(window) --alternate-settle \(settle)`), the endpoint "
                + "disabled at the start of each A window and enabled at the start of each B window (as `PATCH "
                + "/api/v1/webhooks/{id}` does, but in the database: the saturated gateway's API answers after "
                + "seconds); each window measured from \(settle) s after its start to its end: stored "
                + "messages/s, and CPU-seconds per stored message of the gateway (its process: event loop, writer "
                + "and dispatcher) and of PostgreSQL (every postgres process) from /proc. The *A/A* run leaves the "
                + "endpoint disabled throughout: its two sides differ only by the method's own noise. The "
                + "dispatcher claims deliveries of enabled endpoints only, so what a B window leaves pending waits "
                + "for the next B window: the B windows carry the whole cost, writing events and delivering them. "
                + "Outbox: pending deliveries at the end of each side's windows. Target: the two sides within 10%.",
            "",
            "| run | side | windows | stored msg/s | change | gateway µs/msg | PostgreSQL µs/msg | chat p99 | outbox at "
                + "window ends | checks |",
            "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        var changes: [Double] = []
        var controls: [Double] = []
        for run in results.toggles {
            if run.switching { changes.append(run.change) } else { controls.append(run.change) }
            for side in [AlternatingWindows.Side.a, .b] {
                let totals = run.side(side)
                let name =
                    side == .a ? "A (disabled)" : run.switching ? "B (enabled)" : "B (disabled)"
                let ends = totals.pendingEnds.map { PythonFormat.grouped($0) }.joined(separator: ", ")
                lines.append(
                    "| \(run.label) | \(name) | \(totals.windows) | \(grouped(totals.storedPerSecond)) | "
                        + "\(side == .b ? BenchFormat.percent(run.change) : "") | "
                        + "\(fixed(totals.gatewayMicrosPerMessage)) | \(fixed(totals.postgresMicrosPerMessage)) | "
                        + "\(fixed(side == .a ? run.aP99Ms : run.bP99Ms)) ms | \(ends.isEmpty ? "n/a" : ends) | "
                        + "\(run.passed == true ? "passed" : "**FAILED**") |")
            }
        }
        func range(_ values: [Double]) -> String {
            let finite = values.filter(\.isFinite)
            guard let low = finite.min(), let high = finite.max() else { return "none" }
            return low == high
                ? BenchFormat.percent(low) : "\(BenchFormat.percent(low)) to \(BenchFormat.percent(high))"
        }
        let resolves = !controls.isEmpty && controls.allSatisfy { $0.magnitude < targetChange }
        let met = !changes.isEmpty && changes.allSatisfy { $0.magnitude <= targetChange }
        let costVerdict =
            met
            ? resolves
                ? "**target met**: within 10%, with the A/A runs within 10% too"
                : "**target met**, but an A/A run differed by 10% or more, so the method's noise is as large"
            : resolves
                ? "**target missed**: 10% or more apart in a run whose method resolves 10%"
                : "**not shown**: an A/A run differed by 10% or more, so the method cannot resolve 10%"
        lines += [
            "",
            "With the endpoint enabled the writer stored \(range(changes)) against disabled; the A/A runs' two sides "
                + "differed by \(range(controls)) (\(costVerdict)).",
        ]
        let check = results.correctness
        lines += [
            "",
            "Nothing lost: with the outbox \(check.drained ? "drained" : "**not drained**"), "
                + "\(count(check.events)) `message.created` events written, \(PythonFormat.grouped(check.accepted)) "
                + "accepted by the receiver with a good signature, \(PythonFormat.grouped(check.missing)) missing"
                + (check.missingSample.isEmpty ? "" : " (\(check.missingSample.joined(separator: ", ")), ...)")
                + ", \(check.badSignatures) bad signatures, \(PythonFormat.grouped(check.duplicates)) duplicates "
                + "(at least once: a duplicate is allowed), \(count(check.failedDeliveries)) deliveries failed for good: "
                + (check.passed ? "**passed**." : "**FAILED**."),
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
