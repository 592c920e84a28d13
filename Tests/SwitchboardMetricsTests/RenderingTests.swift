import Testing

@testable import SwitchboardMetrics

/// The routing families as a fresh `GatewayMetrics` renders them (after `switchboard_node_info`),
/// without their last newline.
private let routingExposition = """
    # HELP switchboard_routing_assignments_total Sessions assigned, by routing mode (manual: by hand, with session.assign or PATCH).
    # TYPE switchboard_routing_assignments_total counter
    switchboard_routing_assignments_total{mode="least_busy"} 0
    switchboard_routing_assignments_total{mode="manual"} 0
    switchboard_routing_assignments_total{mode="round_robin"} 0
    # HELP switchboard_routing_requeued_total Sessions put back in the routing queue because their operator went offline past its grace.
    # TYPE switchboard_routing_requeued_total counter
    switchboard_routing_requeued_total 0
    # HELP switchboard_routing_wait_seconds Time from a visitor's first waiting message to the session's first assignment, in seconds.
    # TYPE switchboard_routing_wait_seconds histogram
    switchboard_routing_wait_seconds_bucket{le="1.0"} 0
    switchboard_routing_wait_seconds_bucket{le="5.0"} 0
    switchboard_routing_wait_seconds_bucket{le="10.0"} 0
    switchboard_routing_wait_seconds_bucket{le="30.0"} 0
    switchboard_routing_wait_seconds_bucket{le="60.0"} 0
    switchboard_routing_wait_seconds_bucket{le="120.0"} 0
    switchboard_routing_wait_seconds_bucket{le="300.0"} 0
    switchboard_routing_wait_seconds_bucket{le="600.0"} 0
    switchboard_routing_wait_seconds_bucket{le="1800.0"} 0
    switchboard_routing_wait_seconds_bucket{le="3600.0"} 0
    switchboard_routing_wait_seconds_bucket{le="+Inf"} 0
    switchboard_routing_wait_seconds_sum 0.0
    switchboard_routing_wait_seconds_count 0
    # HELP switchboard_routing_pass_seconds One routing pass of a workspace, waiting for its lock included.
    # TYPE switchboard_routing_pass_seconds histogram
    switchboard_routing_pass_seconds_bucket{le="0.001"} 0
    switchboard_routing_pass_seconds_bucket{le="0.0025"} 0
    switchboard_routing_pass_seconds_bucket{le="0.005"} 0
    switchboard_routing_pass_seconds_bucket{le="0.01"} 0
    switchboard_routing_pass_seconds_bucket{le="0.025"} 0
    switchboard_routing_pass_seconds_bucket{le="0.05"} 0
    switchboard_routing_pass_seconds_bucket{le="0.1"} 0
    switchboard_routing_pass_seconds_bucket{le="0.25"} 0
    switchboard_routing_pass_seconds_bucket{le="1.0"} 0
    switchboard_routing_pass_seconds_bucket{le="+Inf"} 0
    switchboard_routing_pass_seconds_sum 0.0
    switchboard_routing_pass_seconds_count 0
    """

/// The attachment families as a fresh `GatewayMetrics` renders them (after routing's),
/// without their last newline.
private let attachmentExposition = """
    # HELP switchboard_attachment_uploads_total Attachment uploads, by outcome: stored, or why not (too_large, unsupported_type, rate_limited, overloaded, unauthorized, forbidden, not_found, bad_request, aborted, failed).
    # TYPE switchboard_attachment_uploads_total counter
    switchboard_attachment_uploads_total{outcome="aborted"} 0
    switchboard_attachment_uploads_total{outcome="bad_request"} 0
    switchboard_attachment_uploads_total{outcome="failed"} 0
    switchboard_attachment_uploads_total{outcome="forbidden"} 0
    switchboard_attachment_uploads_total{outcome="not_found"} 0
    switchboard_attachment_uploads_total{outcome="overloaded"} 0
    switchboard_attachment_uploads_total{outcome="rate_limited"} 0
    switchboard_attachment_uploads_total{outcome="stored"} 0
    switchboard_attachment_uploads_total{outcome="too_large"} 0
    switchboard_attachment_uploads_total{outcome="unauthorized"} 0
    switchboard_attachment_uploads_total{outcome="unsupported_type"} 0
    # HELP switchboard_attachment_bytes_stored_total Bytes of attachment uploads committed.
    # TYPE switchboard_attachment_bytes_stored_total counter
    switchboard_attachment_bytes_stored_total 0
    # HELP switchboard_attachment_bytes_served_total Bytes of attachments written to clients.
    # TYPE switchboard_attachment_bytes_served_total counter
    switchboard_attachment_bytes_served_total 0
    # HELP switchboard_attachment_in_flight_bytes Upload bytes received and not yet stored, reserved from attachments.max_in_flight_bytes.
    # TYPE switchboard_attachment_in_flight_bytes gauge
    switchboard_attachment_in_flight_bytes 0.0
    # HELP switchboard_search_indexed_total Messages this node's search indexer made searchable.
    # TYPE switchboard_search_indexed_total counter
    switchboard_search_indexed_total 0
    # HELP switchboard_search_catching_up 1 while this node's search indexer found more backlog than one pass takes, else 0.
    # TYPE switchboard_search_catching_up gauge
    switchboard_search_catching_up 0.0
    """

/// The webhook families of a fresh registry: attempts and the outbox's gauges have
/// labeled series made on first use, so only their HELP and TYPE show.
let webhookExposition = """
    # HELP switchboard_webhook_events_total Message webhook events this node's expander made from the writer's backlog.
    # TYPE switchboard_webhook_events_total counter
    switchboard_webhook_events_total 0
    # HELP switchboard_webhook_catching_up 1 while this node's webhook expander found more backlog than one pass takes, else 0.
    # TYPE switchboard_webhook_catching_up gauge
    switchboard_webhook_catching_up 0.0
    # HELP switchboard_webhook_backlog_messages Messages stored and not yet made into webhook events, by any node (at most; sampled).
    # TYPE switchboard_webhook_backlog_messages gauge
    switchboard_webhook_backlog_messages 0.0
    # HELP switchboard_webhook_backlog_oldest_seconds Seconds since the oldest message not yet made into webhook events was committed.
    # TYPE switchboard_webhook_backlog_oldest_seconds gauge
    switchboard_webhook_backlog_oldest_seconds 0.0
    # HELP switchboard_webhook_delivery_latency_seconds From a webhook event's commit to its endpoint's 2xx, in seconds (retries included).
    # TYPE switchboard_webhook_delivery_latency_seconds histogram
    switchboard_webhook_delivery_latency_seconds_bucket{le="0.005"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="0.01"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="0.025"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="0.05"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="0.1"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="0.25"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="0.5"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="1.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="2.5"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="5.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="10.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="30.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="60.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="300.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="1800.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="7200.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="36000.0"} 0
    switchboard_webhook_delivery_latency_seconds_bucket{le="+Inf"} 0
    switchboard_webhook_delivery_latency_seconds_sum 0.0
    switchboard_webhook_delivery_latency_seconds_count 0
    # HELP switchboard_webhook_request_seconds One webhook delivery attempt's request, in seconds.
    # TYPE switchboard_webhook_request_seconds histogram
    switchboard_webhook_request_seconds_bucket{le="0.001"} 0
    switchboard_webhook_request_seconds_bucket{le="0.0025"} 0
    switchboard_webhook_request_seconds_bucket{le="0.005"} 0
    switchboard_webhook_request_seconds_bucket{le="0.01"} 0
    switchboard_webhook_request_seconds_bucket{le="0.025"} 0
    switchboard_webhook_request_seconds_bucket{le="0.05"} 0
    switchboard_webhook_request_seconds_bucket{le="0.1"} 0
    switchboard_webhook_request_seconds_bucket{le="0.25"} 0
    switchboard_webhook_request_seconds_bucket{le="0.5"} 0
    switchboard_webhook_request_seconds_bucket{le="1.0"} 0
    switchboard_webhook_request_seconds_bucket{le="2.5"} 0
    switchboard_webhook_request_seconds_bucket{le="5.0"} 0
    switchboard_webhook_request_seconds_bucket{le="10.0"} 0
    switchboard_webhook_request_seconds_bucket{le="+Inf"} 0
    switchboard_webhook_request_seconds_sum 0.0
    switchboard_webhook_request_seconds_count 0
    # HELP switchboard_webhook_queue_errors_total Claims, records and releases of webhook deliveries the database failed (the dispatcher backs off and retries).
    # TYPE switchboard_webhook_queue_errors_total counter
    switchboard_webhook_queue_errors_total{operation="claim"} 0
    switchboard_webhook_queue_errors_total{operation="record"} 0
    switchboard_webhook_queue_errors_total{operation="release"} 0
    # HELP switchboard_webhook_attempts_total Webhook delivery attempts, by outcome: success (2xx), http_error (another status), or why no answer came.
    # TYPE switchboard_webhook_attempts_total counter
    # HELP switchboard_webhook_outbox_pending Deliveries not yet succeeded or failed, per endpoint (sampled every few seconds).
    # TYPE switchboard_webhook_outbox_pending gauge
    # HELP switchboard_webhook_outbox_oldest_due_seconds How long the endpoint's oldest due delivery has waited, in seconds (sampled).
    # TYPE switchboard_webhook_outbox_oldest_due_seconds gauge
    """

@Suite struct RenderingTests {
    @Test func renderingIsExactForAKnownState() {
        let metrics = GatewayMetrics()
        metrics.framesIn.increment(by: 3)
        metrics.closes(code: 1000).increment()
        metrics.connectionsRefused(.perIPConnections).increment()
        metrics.connections(.visitor).increment()
        metrics.connections(.visitor).increment()
        metrics.setPullSource(for: metrics.writerQueueDepth) { 7 }
        metrics.batchSize.observe(4)
        metrics.commitLatency.observe(0.003)
        metrics.sendStages.observe(.commit, nanoseconds: 3_000_000, count: 2)
        metrics.recordHTTPRequest(route: .messages, status: 201)
        metrics.recordHTTPRequest(route: .healthz, status: 200)
        metrics.identify(node: "node-a", bus: "postgres")

        func counter(_ name: String, _ help: String, _ value: Int) -> String {
            "# HELP \(name) \(help)\n# TYPE \(name) counter\n\(name) \(value)\n"
        }
        var expected = """
            # HELP switchboard_connections Open client connections, by role.
            # TYPE switchboard_connections gauge
            switchboard_connections{role="admin"} 0.0
            switchboard_connections{role="operator"} 0.0
            switchboard_connections{role="unauthenticated"} 0.0
            switchboard_connections{role="visitor"} 2.0
            # HELP switchboard_writer_queue_depth Write commands waiting for the batch writer.
            # TYPE switchboard_writer_queue_depth gauge
            switchboard_writer_queue_depth 7.0
            # HELP switchboard_event_loops_saturated Event loops that slept less than a tenth of their last 200 ms: background work yields meanwhile.
            # TYPE switchboard_event_loops_saturated gauge
            switchboard_event_loops_saturated 0.0

            """
        expected += counter("switchboard_frames_in_total", "WebSocket frames received.", 3)
        expected += counter(
            "switchboard_frames_out_total",
            "Chat frames sent to one connection as a reply (acks, errors, query answers); fan-out is counted apart.", 0)
        expected += counter("switchboard_messages_stored_total", "Chat messages committed to the database.", 0)
        expected += counter(
            "switchboard_messages_duplicate_total", "Chat messages dropped as duplicates of a stored message.", 0)
        expected += counter(
            "switchboard_fanout_deliveries_total", "Messages queued to subscribed connections by fan-out.", 0)
        expected += """
            # HELP switchboard_closes_total WebSocket connections closed, by close code.
            # TYPE switchboard_closes_total counter
            switchboard_closes_total{code="1000"} 1
            switchboard_closes_total{code="1001"} 0
            switchboard_closes_total{code="1003"} 0
            switchboard_closes_total{code="1006"} 0
            switchboard_closes_total{code="1008"} 0
            switchboard_closes_total{code="1009"} 0
            switchboard_closes_total{code="4001"} 0
            switchboard_closes_total{code="4008"} 0
            switchboard_closes_total{code="other"} 0

            """
        expected += counter(
            "switchboard_slow_consumer_closes_total", "Connections closed because their send queue overflowed.", 0)
        expected += counter("switchboard_rate_limited_total", "Requests or messages refused by rate limiting.", 0)
        expected += """
            # HELP switchboard_connections_refused_total Connections refused before being served, by reason: max_connections (503), per_ip_connections and per_ip_rate (429).
            # TYPE switchboard_connections_refused_total counter
            switchboard_connections_refused_total{reason="max_connections"} 0
            switchboard_connections_refused_total{reason="per_ip_connections"} 1
            switchboard_connections_refused_total{reason="per_ip_rate"} 0

            """
        expected += """
            # HELP switchboard_database_errors_total Database errors, by component.
            # TYPE switchboard_database_errors_total counter
            switchboard_database_errors_total{component="reader"} 0
            switchboard_database_errors_total{component="writer"} 0
            # HELP switchboard_database_reconnects_total Database reconnections, by component.
            # TYPE switchboard_database_reconnects_total counter
            switchboard_database_reconnects_total{component="reader"} 0
            switchboard_database_reconnects_total{component="writer"} 0
            # HELP switchboard_writer_batches_sent_total Writer batches sent, by connection (first: below the split mark it carries every session; other: the writer's other connections, used from writer.split_mark_messages waiting).
            # TYPE switchboard_writer_batches_sent_total counter
            switchboard_writer_batches_sent_total{connection="first"} 0
            switchboard_writer_batches_sent_total{connection="other"} 0
            # HELP switchboard_http_requests_total HTTP requests answered, by route and status code.
            # TYPE switchboard_http_requests_total counter
            switchboard_http_requests_total{route="healthz",status="200"} 1
            switchboard_http_requests_total{route="messages",status="201"} 1
            # HELP switchboard_batch_size Write commands per committed writer batch.
            # TYPE switchboard_batch_size histogram
            switchboard_batch_size_bucket{le="1.0"} 0
            switchboard_batch_size_bucket{le="2.0"} 0
            switchboard_batch_size_bucket{le="4.0"} 1
            switchboard_batch_size_bucket{le="8.0"} 1
            switchboard_batch_size_bucket{le="16.0"} 1
            switchboard_batch_size_bucket{le="32.0"} 1
            switchboard_batch_size_bucket{le="64.0"} 1
            switchboard_batch_size_bucket{le="128.0"} 1
            switchboard_batch_size_bucket{le="256.0"} 1
            switchboard_batch_size_bucket{le="512.0"} 1
            switchboard_batch_size_bucket{le="1024.0"} 1
            switchboard_batch_size_bucket{le="4096.0"} 1
            switchboard_batch_size_bucket{le="+Inf"} 1
            switchboard_batch_size_sum 4.0
            switchboard_batch_size_count 1
            # HELP switchboard_commit_latency_seconds Time from sending a writer batch to its commit, in seconds.
            # TYPE switchboard_commit_latency_seconds histogram
            switchboard_commit_latency_seconds_bucket{le="0.0005"} 0
            switchboard_commit_latency_seconds_bucket{le="0.001"} 0
            switchboard_commit_latency_seconds_bucket{le="0.0025"} 0
            switchboard_commit_latency_seconds_bucket{le="0.005"} 1
            switchboard_commit_latency_seconds_bucket{le="0.0075"} 1
            switchboard_commit_latency_seconds_bucket{le="0.01"} 1
            switchboard_commit_latency_seconds_bucket{le="0.025"} 1
            switchboard_commit_latency_seconds_bucket{le="0.05"} 1
            switchboard_commit_latency_seconds_bucket{le="0.1"} 1
            switchboard_commit_latency_seconds_bucket{le="0.25"} 1
            switchboard_commit_latency_seconds_bucket{le="0.5"} 1
            switchboard_commit_latency_seconds_bucket{le="1.0"} 1
            switchboard_commit_latency_seconds_bucket{le="+Inf"} 1
            switchboard_commit_latency_seconds_sum 0.003
            switchboard_commit_latency_seconds_count 1
            # HELP switchboard_send_stage_seconds Where a sent message's time goes in the gateway, by stage (receive, queue, commit, handoff, deliver; total from receipt to ack written), in seconds.
            # TYPE switchboard_send_stage_seconds histogram

            """
        let stageBounds = [
            "0.00005", "0.0001", "0.00025", "0.0005", "0.00075", "0.001", "0.0015", "0.002", "0.003", "0.004", "0.005",
            "0.0075", "0.01", "0.015", "0.02", "0.025", "0.035", "0.05", "0.075", "0.1", "0.15", "0.25", "0.5", "1",
            "2.5",
        ]
        for stage in ["receive", "queue", "commit", "handoff", "deliver", "total"] {
            // The commit stage holds the two messages of one 3 ms batch.
            let observed = stage == "commit" ? 2 : 0
            for bound in stageBounds {
                let count = Double(bound)! >= 0.003 ? observed : 0
                expected += "switchboard_send_stage_seconds_bucket{stage=\"\(stage)\",le=\"\(bound)\"} \(count)\n"
            }
            expected += "switchboard_send_stage_seconds_bucket{stage=\"\(stage)\",le=\"+Inf\"} \(observed)\n"
            expected += "switchboard_send_stage_seconds_sum{stage=\"\(stage)\"} \(observed > 0 ? "0.006" : "0")\n"
            expected += "switchboard_send_stage_seconds_count{stage=\"\(stage)\"} \(observed)\n"
        }
        expected += """
            # HELP switchboard_bus_notifications_total Cluster bus notifications, received (in) and published (out).
            # TYPE switchboard_bus_notifications_total counter
            switchboard_bus_notifications_total{direction="in"} 0
            switchboard_bus_notifications_total{direction="out"} 0
            # HELP switchboard_bus_catchup_reads_total Sessions read from the database to fill a seq gap or catch up after the bus was lost.
            # TYPE switchboard_bus_catchup_reads_total counter
            switchboard_bus_catchup_reads_total 0
            # HELP switchboard_bus_reconnects_total Cluster bus connections made again after a loss.
            # TYPE switchboard_bus_reconnects_total counter
            switchboard_bus_reconnects_total 0
            # HELP switchboard_bus_dropped_total Events not published on the cluster bus (full outbox, lost connection).
            # TYPE switchboard_bus_dropped_total counter
            switchboard_bus_dropped_total 0
            # HELP switchboard_bus_delivery_latency_seconds From another node's publication to this node's receipt, in seconds (wall clocks).
            # TYPE switchboard_bus_delivery_latency_seconds histogram
            switchboard_bus_delivery_latency_seconds_bucket{le="0.0001"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.00025"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.0005"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.001"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.0025"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.005"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.01"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.025"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.05"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.1"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="0.25"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="1.0"} 0
            switchboard_bus_delivery_latency_seconds_bucket{le="+Inf"} 0
            switchboard_bus_delivery_latency_seconds_sum 0.0
            switchboard_bus_delivery_latency_seconds_count 0
            # HELP switchboard_node_info This node: cluster.node_id and cluster.bus, value 1.
            # TYPE switchboard_node_info gauge
            switchboard_node_info{node_id="node-a",bus="postgres"} 1.0
            \(routingExposition)
            \(attachmentExposition)
            \(webhookExposition)

            """
        let rendered = metrics.renderString()
        #expect(rendered == expected)
        // The same state renders the same bytes every time (families are not in hash order).
        #expect(metrics.render() == Array(expected.utf8))
    }

    @Test func familiesWithoutSeriesStillHaveHelpAndType() {
        let text = GatewayMetrics().renderString()
        #expect(
            text.contains(
                "# HELP switchboard_http_requests_total HTTP requests answered, by route and status code.\n"
                    + "# TYPE switchboard_http_requests_total counter\n# HELP switchboard_batch_size "))
    }

    @Test func familiesRegisteredByOthersComeLastSortedByName() {
        let metrics = GatewayMetrics()
        metrics.registerPullGauge(name: "zz_pulled", help: "Pulled.") { 1 }
        _ = metrics.registry.makeCounter(descriptor: .init(metricName: "b_extra_total", unitName: "", helpText: "B."))
        _ = metrics.registry.makeCounter(descriptor: .init(metricName: "a_extra_total", unitName: "", helpText: "A."))
        let text = metrics.renderString()
        #expect(
            text.hasSuffix(
                """
                switchboard_bus_delivery_latency_seconds_count 0
                # HELP switchboard_node_info This node: cluster.node_id and cluster.bus, value 1.
                # TYPE switchboard_node_info gauge
                \(routingExposition)
                \(attachmentExposition)
                \(webhookExposition)
                # HELP zz_pulled Pulled.
                # TYPE zz_pulled gauge
                zz_pulled 1.0
                # HELP a_extra_total A.
                # TYPE a_extra_total counter
                a_extra_total 0
                # HELP b_extra_total B.
                # TYPE b_extra_total counter
                b_extra_total 0

                """))
    }
}

@Suite struct WebhookMetricsTests {
    /// Outcomes and endpoints are labels made on first use; asking again gives the same series.
    @Test func attemptsAndOutboxGaugesRenderOnceUsed() {
        let metrics = GatewayMetrics()
        metrics.webhookAttempts(outcome: "success").increment()
        metrics.webhookAttempts(outcome: "success").increment()
        metrics.webhookAttempts(outcome: "timeout").increment()
        metrics.setWebhookOutbox(endpoint: "e1", pending: 3, oldestDueSeconds: 1.5)
        metrics.setWebhookOutbox(endpoint: "e1", pending: 0, oldestDueSeconds: 0)
        let text = metrics.renderString()
        #expect(text.contains("switchboard_webhook_attempts_total{outcome=\"success\"} 2\n"))
        #expect(text.contains("switchboard_webhook_attempts_total{outcome=\"timeout\"} 1\n"))
        #expect(text.contains("switchboard_webhook_outbox_pending{endpoint=\"e1\"} 0.0\n"))
        #expect(text.contains("switchboard_webhook_outbox_oldest_due_seconds{endpoint=\"e1\"} 0.0\n"))
    }
}
