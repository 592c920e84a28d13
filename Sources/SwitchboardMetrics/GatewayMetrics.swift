import Prometheus
import Synchronization

/// Every metric the gateway exposes at `GET /metrics`. Create one per process at start-up and hand
/// it to the components; the hot paths use the pre-created handles below and never look anything
/// up by name. All handles are safe to use from any thread and never block on I/O.
public final class GatewayMetrics: Sendable {
    /// The `Content-Type` of ``render()``'s output.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// `switchboard_batch_size` bucket upper bounds (plus `+Inf`).
    public static let batchSizeBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096]
    /// `switchboard_commit_latency_seconds` bucket upper bounds (plus `+Inf`).
    public static let commitLatencyBuckets: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
    ]

    /// The backing registry. Metrics registered on it directly (or through a
    /// `PrometheusMetricsFactory(registry:)` given to swift-metrics) render after the gateway's own.
    public let registry: PrometheusCollectorRegistry

    // Gauges.
    /// `switchboard_connections{role=...}`, indexed like `ConnectionRole.allCases`.
    private let connectionsByRole: [GaugeHandle]
    /// `switchboard_writer_queue_depth`: set it, or attach a pull source with ``setPullSource(for:_:)``.
    public let writerQueueDepth: GaugeHandle
    /// `switchboard_event_loops_saturated`: attach a pull source.
    public let eventLoopsSaturated: GaugeHandle

    // Counters.
    /// `switchboard_frames_in_total`
    public let framesIn: CounterHandle
    /// `switchboard_frames_out_total`
    public let framesOut: CounterHandle
    /// `switchboard_messages_stored_total`
    public let messagesStored: CounterHandle
    /// `switchboard_messages_duplicate_total`
    public let messagesDuplicate: CounterHandle
    /// `switchboard_fanout_deliveries_total`
    public let fanoutDeliveries: CounterHandle
    /// `switchboard_closes_total{code=...}`, indexed like `CloseCodeLabel.values`.
    private let closesByCode: [CounterHandle]
    /// `switchboard_slow_consumer_closes_total`
    public let slowConsumerCloses: CounterHandle
    /// `switchboard_rate_limited_total`
    public let rateLimited: CounterHandle
    /// `switchboard_connections_refused_total{reason=...}`, indexed like `ConnectionRefusal.allCases`.
    private let connectionsRefusedByReason: [CounterHandle]
    /// `switchboard_database_errors_total{component=...}`, indexed like `DatabaseComponent.allCases`.
    private let databaseErrorsByComponent: [CounterHandle]
    /// `switchboard_database_reconnects_total{component=...}`, indexed like `DatabaseComponent.allCases`.
    private let databaseReconnectsByComponent: [CounterHandle]
    /// `switchboard_writer_batches_sent_total{connection="first"}` and `{connection="other"}`.
    public let writerBatchesSentOnFirst: CounterHandle
    public let writerBatchesSentOnOthers: CounterHandle
    private let httpRequests: HTTPRequestCounters

    // Histograms.
    /// `switchboard_batch_size`: statements per committed writer batch.
    public let batchSize: HistogramHandle
    /// `switchboard_commit_latency_seconds`: time from BEGIN to COMMIT acknowledged.
    public let commitLatency: HistogramHandle
    /// `switchboard_send_stage_seconds{stage=...}`: where a sent message's time goes.
    public let sendStages = SendStages()

    // The cluster bus (docs/cluster.md).
    /// `switchboard_bus_notifications_total{direction="in"}`: notifications from other nodes.
    public let busNotificationsIn: CounterHandle
    /// `switchboard_bus_notifications_total{direction="out"}`: events this node published.
    public let busNotificationsOut: CounterHandle
    /// `switchboard_bus_catchup_reads_total`: sessions read from the database to fill a gap or catch up.
    public let busCatchUpReads: CounterHandle
    /// `switchboard_bus_reconnects_total`
    public let busReconnects: CounterHandle
    /// `switchboard_bus_dropped_total`: events not published (full outbox, lost connection).
    public let busDropped: CounterHandle
    /// `switchboard_bus_delivery_latency_seconds`: from another node's send to this node's receipt.
    public let busDeliveryLatency: HistogramHandle
    /// `switchboard_bus_delivery_latency_seconds` bucket upper bounds (plus `+Inf`).
    public static let busLatencyBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
    ]

    // Routing (docs/routing.md).
    /// `switchboard_routing_assignments_total{mode=...}`, indexed like `routingModes`.
    private let routingAssignmentsByMode: [CounterHandle]
    /// The `mode` label values: the routing modes, and `manual` for assignments made by hand.
    public static let routingModes = ["least_busy", "round_robin", "manual"]
    /// `switchboard_routing_requeued_total`: sessions put back in the queue (their operator gone).
    public let routingRequeued: CounterHandle
    /// `switchboard_routing_wait_seconds`: from a visitor's first waiting message to the first assignment.
    public let routingWait: HistogramHandle
    /// `switchboard_routing_pass_seconds`: one routing pass, lock wait included.
    public let routingPassLatency: HistogramHandle
    /// `switchboard_routing_wait_seconds` bucket upper bounds (plus `+Inf`).
    public static let routingWaitBuckets: [Double] = [1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600]
    /// `switchboard_routing_pass_seconds` bucket upper bounds (plus `+Inf`).
    public static let routingPassBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    // Attachments (docs/attachments.md).
    /// `switchboard_attachment_uploads_total{outcome=...}`, indexed like `AttachmentUploadOutcome.allCases`.
    private let attachmentUploadsByOutcome: [CounterHandle]
    /// `switchboard_attachment_bytes_stored_total`: bytes of the uploads committed.
    public let attachmentBytesStored: CounterHandle
    /// `switchboard_attachment_bytes_served_total`: bytes of attachments written to clients.
    public let attachmentBytesServed: CounterHandle
    /// `switchboard_attachment_in_flight_bytes`: the in-flight budget reserved by uploads
    /// (received and not yet stored, `attachments.max_in_flight_bytes` at most); a pull gauge.
    public let attachmentInFlightBytes: GaugeHandle

    // Search (docs/database.md, "Search").
    /// `switchboard_search_indexed_total`: messages this node's search indexer made searchable.
    public let searchIndexed: CounterHandle
    /// `switchboard_search_catching_up`: 1 while this node's indexer found more backlog than one
    /// pass takes (search is behind what is stored), else 0.
    public let searchCatchingUp: GaugeHandle

    // Webhooks (docs/webhooks.md).
    /// `switchboard_webhook_events_total`: message events this node's expander made from the
    /// writer's backlog (migration 21).
    public let webhookEventsWritten: CounterHandle
    /// `switchboard_webhook_catching_up`: 1 while this node's expander found more backlog than one
    /// pass takes (message events are behind what is stored), else 0.
    public let webhookCatchingUp: GaugeHandle
    /// `switchboard_webhook_backlog_messages`: messages stored and not yet made into webhook
    /// events, by every node (an upper bound: a batch's duplicates have no message), sampled.
    public let webhookBacklogMessages: GaugeHandle
    /// `switchboard_webhook_backlog_oldest_seconds`: how long ago the oldest of them was
    /// committed; 0 when there are none.
    public let webhookBacklogOldestSeconds: GaugeHandle
    /// `switchboard_webhook_delivery_latency_seconds`: from an event's commit to its endpoint's 2xx.
    public let webhookDeliveryLatency: HistogramHandle
    /// `switchboard_webhook_request_seconds`: one attempt's request, whatever its outcome.
    public let webhookRequestSeconds: HistogramHandle
    /// `switchboard_webhook_queue_errors_total{operation="claim"|"record"}`: the outbox's database failed the dispatcher.
    public let webhookQueueErrors: [String: CounterHandle]
    /// `switchboard_webhook_delivery_latency_seconds` bucket upper bounds (plus `+Inf`): retries reach hours.
    public static let webhookLatencyBuckets: [Double] = [
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36000,
    ]
    public static let webhookRequestBuckets: [Double] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    static let webhookAttemptsName = "switchboard_webhook_attempts_total"
    static let webhookAttemptsHelp =
        "Webhook delivery attempts, by outcome: success (2xx), http_error (another status), or why no answer came."
    static let webhookPendingName = "switchboard_webhook_outbox_pending"
    static let webhookPendingHelp = "Deliveries not yet succeeded or failed, per endpoint (sampled every few seconds)."
    static let webhookOldestName = "switchboard_webhook_outbox_oldest_due_seconds"
    static let webhookOldestHelp = "How long the endpoint's oldest due delivery has waited, in seconds (sampled)."
    /// Labeled handles made on first use: outcomes and endpoints are not known up front here.
    private let labeled = Mutex<[String: GaugeOrCounter]>([:])

    private enum GaugeOrCounter: Sendable {
        case counter(CounterHandle)
        case gauge(GaugeHandle)
    }

    private struct PullSource: Sendable {
        let gauge: GaugeHandle
        let read: @Sendable () -> Double
    }

    private let pullSources = Mutex<[PullSource]>([])
    private let families: Mutex<[FamilyDescriptor]>

    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        var families: [FamilyDescriptor] = []

        func declare(_ name: String, _ type: String, _ help: String) -> MetricNameDescriptor {
            families.append(FamilyDescriptor(name: name, help: help, type: type))
            return MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
        }
        func counter(_ name: String, _ help: String) -> CounterHandle {
            CounterHandle(registry.makeCounter(descriptor: declare(name, "counter", help)))
        }
        func counters(_ name: String, _ help: String, label: String, values: [String]) -> [CounterHandle] {
            let descriptor = declare(name, "counter", help)
            return values.map { CounterHandle(registry.makeCounter(descriptor: descriptor, labels: [(label, $0)])) }
        }
        func gauge(_ name: String, _ help: String) -> GaugeHandle {
            GaugeHandle(registry.makeGauge(descriptor: declare(name, "gauge", help)))
        }
        func histogram(_ name: String, _ help: String, buckets: [Double]) -> HistogramHandle {
            HistogramHandle(registry.makeValueHistogram(descriptor: declare(name, "histogram", help), buckets: buckets))
        }

        let connections = declare("switchboard_connections", "gauge", "Open client connections, by role.")
        connectionsByRole = ConnectionRole.allCases.map {
            GaugeHandle(registry.makeGauge(descriptor: connections, labels: [("role", $0.rawValue)]))
        }
        writerQueueDepth = gauge("switchboard_writer_queue_depth", "Write commands waiting for the batch writer.")
        eventLoopsSaturated = gauge(
            "switchboard_event_loops_saturated",
            "Event loops that slept less than a tenth of their last 200 ms: background work yields meanwhile.")

        framesIn = counter("switchboard_frames_in_total", "WebSocket frames received.")
        framesOut = counter(
            "switchboard_frames_out_total",
            "Chat frames sent to one connection as a reply (acks, errors, query answers); fan-out is counted apart.")
        messagesStored = counter("switchboard_messages_stored_total", "Chat messages committed to the database.")
        messagesDuplicate = counter(
            "switchboard_messages_duplicate_total", "Chat messages dropped as duplicates of a stored message.")
        fanoutDeliveries = counter(
            "switchboard_fanout_deliveries_total", "Messages queued to subscribed connections by fan-out.")
        closesByCode = counters(
            "switchboard_closes_total", "WebSocket connections closed, by close code.", label: "code",
            values: CloseCodeLabel.values)
        slowConsumerCloses = counter(
            "switchboard_slow_consumer_closes_total", "Connections closed because their send queue overflowed.")
        rateLimited = counter("switchboard_rate_limited_total", "Requests or messages refused by rate limiting.")
        connectionsRefusedByReason = counters(
            "switchboard_connections_refused_total",
            "Connections refused before being served, by reason: max_connections (503), per_ip_connections and per_ip_rate (429).",
            label: "reason", values: ConnectionRefusal.allCases.map(\.rawValue))
        let components = DatabaseComponent.allCases.map(\.rawValue)
        databaseErrorsByComponent = counters(
            "switchboard_database_errors_total", "Database errors, by component.", label: "component",
            values: components)
        databaseReconnectsByComponent = counters(
            "switchboard_database_reconnects_total", "Database reconnections, by component.", label: "component",
            values: components)
        let batchesSent = counters(
            "switchboard_writer_batches_sent_total",
            "Writer batches sent, by connection (first: below the split mark it carries every session; "
                + "other: the writer's other connections, used from writer.split_mark_messages waiting).",
            label: "connection", values: ["first", "other"])
        writerBatchesSentOnFirst = batchesSent[0]
        writerBatchesSentOnOthers = batchesSent[1]
        _ = declare(HTTPRequestCounters.name, "counter", HTTPRequestCounters.help)
        httpRequests = HTTPRequestCounters(registry: registry)

        batchSize = histogram(
            "switchboard_batch_size", "Write commands per committed writer batch.", buckets: Self.batchSizeBuckets)
        commitLatency = histogram(
            "switchboard_commit_latency_seconds", "Time from sending a writer batch to its commit, in seconds.",
            buckets: Self.commitLatencyBuckets)

        families.append(FamilyDescriptor(name: SendStages.name, help: SendStages.help, type: "histogram"))

        let busNotifications = counters(
            "switchboard_bus_notifications_total", "Cluster bus notifications, received (in) and published (out).",
            label: "direction", values: ["in", "out"])
        busNotificationsIn = busNotifications[0]
        busNotificationsOut = busNotifications[1]
        busCatchUpReads = counter(
            "switchboard_bus_catchup_reads_total",
            "Sessions read from the database to fill a seq gap or catch up after the bus was lost.")
        busReconnects = counter("switchboard_bus_reconnects_total", "Cluster bus connections made again after a loss.")
        busDropped = counter(
            "switchboard_bus_dropped_total", "Events not published on the cluster bus (full outbox, lost connection).")
        busDeliveryLatency = histogram(
            "switchboard_bus_delivery_latency_seconds",
            "From another node's publication to this node's receipt, in seconds (wall clocks).",
            buckets: Self.busLatencyBuckets)
        _ = declare("switchboard_node_info", "gauge", "This node: cluster.node_id and cluster.bus, value 1.")

        routingAssignmentsByMode = counters(
            "switchboard_routing_assignments_total",
            "Sessions assigned, by routing mode (manual: by hand, with session.assign or PATCH).", label: "mode",
            values: Self.routingModes)
        routingRequeued = counter(
            "switchboard_routing_requeued_total",
            "Sessions put back in the routing queue because their operator went offline past its grace.")
        routingWait = histogram(
            "switchboard_routing_wait_seconds",
            "Time from a visitor's first waiting message to the session's first assignment, in seconds.",
            buckets: Self.routingWaitBuckets)
        routingPassLatency = histogram(
            "switchboard_routing_pass_seconds", "One routing pass of a workspace, waiting for its lock included.",
            buckets: Self.routingPassBuckets)

        attachmentUploadsByOutcome = counters(
            "switchboard_attachment_uploads_total",
            "Attachment uploads, by outcome: stored, or why not (too_large, unsupported_type, rate_limited, overloaded, "
                + "unauthorized, forbidden, not_found, bad_request, aborted, failed).",
            label: "outcome", values: AttachmentUploadOutcome.allCases.map(\.rawValue))
        attachmentBytesStored = counter(
            "switchboard_attachment_bytes_stored_total", "Bytes of attachment uploads committed.")
        attachmentBytesServed = counter(
            "switchboard_attachment_bytes_served_total", "Bytes of attachments written to clients.")
        attachmentInFlightBytes = gauge(
            "switchboard_attachment_in_flight_bytes",
            "Upload bytes received and not yet stored, reserved from attachments.max_in_flight_bytes.")
        searchIndexed = counter(
            "switchboard_search_indexed_total", "Messages this node's search indexer made searchable.")
        searchCatchingUp = gauge(
            "switchboard_search_catching_up",
            "1 while this node's search indexer found more backlog than one pass takes, else 0.")

        webhookEventsWritten = counter(
            "switchboard_webhook_events_total",
            "Message webhook events this node's expander made from the writer's backlog.")
        webhookCatchingUp = gauge(
            "switchboard_webhook_catching_up",
            "1 while this node's webhook expander found more backlog than one pass takes, else 0.")
        webhookBacklogMessages = gauge(
            "switchboard_webhook_backlog_messages",
            "Messages stored and not yet made into webhook events, by any node (at most; sampled).")
        webhookBacklogOldestSeconds = gauge(
            "switchboard_webhook_backlog_oldest_seconds",
            "Seconds since the oldest message not yet made into webhook events was committed.")
        webhookDeliveryLatency = histogram(
            "switchboard_webhook_delivery_latency_seconds",
            "From a webhook event's commit to its endpoint's 2xx, in seconds (retries included).",
            buckets: Self.webhookLatencyBuckets)
        webhookRequestSeconds = histogram(
            "switchboard_webhook_request_seconds", "One webhook delivery attempt's request, in seconds.",
            buckets: Self.webhookRequestBuckets)
        let queueErrors = counters(
            "switchboard_webhook_queue_errors_total",
            "Claims, records and releases of webhook deliveries the database failed (the dispatcher backs off and retries).",
            label: "operation", values: ["claim", "record", "release"])
        webhookQueueErrors = ["claim": queueErrors[0], "record": queueErrors[1], "release": queueErrors[2]]
        _ = declare(Self.webhookAttemptsName, "counter", Self.webhookAttemptsHelp)
        _ = declare(Self.webhookPendingName, "gauge", Self.webhookPendingHelp)
        _ = declare(Self.webhookOldestName, "gauge", Self.webhookOldestHelp)

        self.families = Mutex(families)
    }

    /// `switchboard_webhook_attempts_total{outcome=...}`; made on first use (off the loops: dispatcher threads).
    public func webhookAttempts(outcome: String) -> CounterHandle {
        let key = "attempts:" + outcome
        return labeled.withLock { handles in
            if case .counter(let handle) = handles[key] { return handle }
            let handle = CounterHandle(
                registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        metricName: Self.webhookAttemptsName, unitName: "", helpText: Self.webhookAttemptsHelp),
                    labels: [("outcome", outcome)]))
            handles[key] = .counter(handle)
            return handle
        }
    }

    /// Sets the outbox's gauges of one endpoint (`switchboard_webhook_outbox_pending` and
    /// `..._oldest_due_seconds`); made on first use.
    public func setWebhookOutbox(endpoint: String, pending: Int, oldestDueSeconds: Double) {
        func gauge(_ name: String, _ help: String) -> GaugeHandle {
            let key = name + ":" + endpoint
            return labeled.withLock { handles in
                if case .gauge(let handle) = handles[key] { return handle }
                let handle = GaugeHandle(
                    registry.makeGauge(
                        descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help),
                        labels: [("endpoint", endpoint)]))
                handles[key] = .gauge(handle)
                return handle
            }
        }
        gauge(Self.webhookPendingName, Self.webhookPendingHelp).set(Double(pending))
        gauge(Self.webhookOldestName, Self.webhookOldestHelp).set(oldestDueSeconds)
    }

    /// Names this node in the exposition (`switchboard_node_info{node_id=...,bus=...} 1`); call once at start-up.
    public func identify(node: String, bus: String) {
        let descriptor = MetricNameDescriptor(
            metricName: "switchboard_node_info", unitName: "",
            helpText: "This node: cluster.node_id and cluster.bus, value 1.")
        registry.makeGauge(descriptor: descriptor, labels: [("node_id", node), ("bus", bus)]).set(to: 1.0)
    }

    // MARK: Labeled handles (array lookups, no locks)

    /// `switchboard_connections{role=...}`
    public func connections(_ role: ConnectionRole) -> GaugeHandle {
        switch role {
        case .visitor: connectionsByRole[0]
        case .operator: connectionsByRole[1]
        case .admin: connectionsByRole[2]
        case .unauthenticated: connectionsByRole[3]
        }
    }

    /// `switchboard_closes_total{code=...}`: codes other than 1000, 1001, 1003, 1008, 1009, 4001
    /// and 4008 count as `code="other"`.
    public func closes(code: UInt16) -> CounterHandle {
        closesByCode[CloseCodeLabel.index(of: code)]
    }

    /// `switchboard_connections_refused_total{reason=...}`
    public func connectionsRefused(_ reason: ConnectionRefusal) -> CounterHandle {
        connectionsRefusedByReason[ConnectionRefusal.allCases.firstIndex(of: reason)!]
    }

    /// `switchboard_database_errors_total{component=...}`
    public func databaseErrors(_ component: DatabaseComponent) -> CounterHandle {
        databaseErrorsByComponent[component == .writer ? 0 : 1]
    }

    /// `switchboard_database_reconnects_total{component=...}`
    public func databaseReconnects(_ component: DatabaseComponent) -> CounterHandle {
        databaseReconnectsByComponent[component == .writer ? 0 : 1]
    }

    /// `switchboard_http_requests_total{route=...,status=...}`. The first request of a pair
    /// creates its series under a lock; later ones find it with one atomic load.
    public func httpRequests(route: HTTPRoute, status: Int) -> CounterHandle {
        httpRequests.counter(route: route, status: status)
    }

    /// Counts one answered HTTP request.
    public func recordHTTPRequest(route: HTTPRoute, status: Int) {
        httpRequests.counter(route: route, status: status).increment()
    }

    /// `switchboard_attachment_uploads_total{outcome=...}`
    public func attachmentUploads(_ outcome: AttachmentUploadOutcome) -> CounterHandle {
        attachmentUploadsByOutcome[AttachmentUploadOutcome.allCases.firstIndex(of: outcome)!]
    }

    /// `switchboard_routing_assignments_total{mode=...}`; an unknown mode counts as `manual`.
    public func routingAssignments(mode: String) -> CounterHandle {
        routingAssignmentsByMode[Self.routingModes.firstIndex(of: mode) ?? 2]
    }

    // MARK: Pull gauges

    /// Makes `gauge` take the value of `read()` each time the exposition is rendered (replacing any
    /// earlier source for it). `read` runs on the thread that renders: keep it cheap and non-blocking.
    public func setPullSource(for gauge: GaugeHandle, _ read: @escaping @Sendable () -> Double) {
        pullSources.withLock { sources in
            sources.removeAll { $0.gauge.identity == gauge.identity }
            sources.append(PullSource(gauge: gauge, read: read))
        }
    }

    /// Registers a new unlabeled gauge whose value is `read()` at render time. Register each name once,
    /// at start-up.
    @discardableResult
    public func registerPullGauge(
        name: String, help: String, _ read: @escaping @Sendable () -> Double
    )
        -> GaugeHandle
    {
        let gauge = GaugeHandle(
            registry.makeGauge(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help)))
        families.withLock { $0.append(FamilyDescriptor(name: name, help: help, type: "gauge")) }
        setPullSource(for: gauge, read)
        return gauge
    }

    // MARK: Exposition

    /// The whole exposition in Prometheus text format 0.0.4 (serve it with ``contentType``).
    /// Families come in a fixed order; every declared family has HELP and TYPE lines.
    public func render() -> [UInt8] {
        for source in pullSources.withLock({ $0 }) {
            source.gauge.set(source.read())
        }
        var raw: [UInt8] = []
        raw.reserveCapacity(8192)
        registry.emit(into: &raw)
        sendStages.render(into: &raw)
        return Exposition.order(raw, families: families.withLock { $0 })
    }

    /// ``render()`` as a String.
    public func renderString() -> String {
        String(decoding: render(), as: UTF8.self)
    }
}
