import SwitchboardAdmission
import SwitchboardSystem

/// One configuration key: its name in the file, its environment variables,
/// and how it sets (and checks) its field.
struct ConfigurationKey: Sendable {
    enum Kind: Sendable { case string, integer(ClosedRange<Int>), boolean, strings, addresses }

    let name: String
    let kind: Kind
    let extraEnvironmentNames: [String]
    let set: @Sendable (inout Configuration, ConfigValue) throws(ConfigError) -> Void

    var environmentNames: [String] {
        ["SWITCHBOARD_" + name.uppercased().replacingOccurrencesOfDotsAndDashes()] + extraEnvironmentNames
    }

    func apply(_ value: ConfigValue, _ configuration: inout Configuration) throws(ConfigError) {
        switch (kind, value) {
        case (.integer(let range), .integer(let n)):
            guard range.contains(n) else {
                throw ConfigError(key: name, message: "\(n) is out of range \(range.lowerBound)...\(range.upperBound)")
            }
        case (.string, .string), (.boolean, .boolean), (.strings, .strings), (.addresses, .strings): break
        case (.addresses, .string(let single)):
            try set(&configuration, .strings([single]))
            return
        default:
            throw ConfigError(key: name, message: "expected \(expectedType), found \(value.typeName)")
        }
        try set(&configuration, value)
    }

    /// Environment variables are text; read them as this key's type.
    func parseEnvironment(_ text: String, variable: String) throws(ConfigError) -> ConfigValue {
        switch kind {
        case .string: return .string(text)
        case .integer:
            guard let n = Int(text.replacingUnderscores()) else {
                throw ConfigError(key: name, message: "\(variable)='\(text)' is not an integer")
            }
            return .integer(n)
        case .boolean:
            switch text.lowercased() {
            case "1", "true", "yes", "on": return .boolean(true)
            case "0", "false", "no", "off": return .boolean(false)
            default: throw ConfigError(key: name, message: "\(variable)='\(text)' is not a boolean")
            }
        case .strings, .addresses:
            return .strings(text.split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty })
        }
    }

    private var expectedType: String {
        switch kind {
        case .string: "a string"
        case .integer: "an integer"
        case .boolean: "a boolean"
        case .strings: "a list of strings"
        case .addresses: "a list of \"HOST:PORT\" strings"
        }
    }
}

extension String {
    func replacingOccurrencesOfDotsAndDashes() -> String {
        String(map { $0 == "." || $0 == "-" ? "_" : $0 })
    }
}

enum ConfigurationKeys {
    static func string(
        _ name: String, env: [String] = [], _ path: WritableKeyPath<Configuration, String> & Sendable
    )
        -> ConfigurationKey
    {
        ConfigurationKey(name: name, kind: .string, extraEnvironmentNames: env) { c, v throws(ConfigError) in
            if case .string(let s) = v { c[keyPath: path] = s }
        }
    }

    static func integer(
        _ name: String, _ range: ClosedRange<Int>, _ path: WritableKeyPath<Configuration, Int> & Sendable
    ) -> ConfigurationKey {
        ConfigurationKey(name: name, kind: .integer(range), extraEnvironmentNames: []) { c, v throws(ConfigError) in
            if case .integer(let n) = v { c[keyPath: path] = n }
        }
    }

    static func boolean(_ name: String, _ path: WritableKeyPath<Configuration, Bool> & Sendable) -> ConfigurationKey {
        ConfigurationKey(name: name, kind: .boolean, extraEnvironmentNames: []) { c, v throws(ConfigError) in
            if case .boolean(let b) = v { c[keyPath: path] = b }
        }
    }

    static func strings(
        _ name: String, _ path: WritableKeyPath<Configuration, [String]> & Sendable
    )
        -> ConfigurationKey
    {
        ConfigurationKey(name: name, kind: .strings, extraEnvironmentNames: []) { c, v throws(ConfigError) in
            if case .strings(let list) = v { c[keyPath: path] = list }
        }
    }

    static func addresses(
        _ name: String, _ path: WritableKeyPath<Configuration, [SocketAddress]> & Sendable
    )
        -> ConfigurationKey
    {
        ConfigurationKey(name: name, kind: .addresses, extraEnvironmentNames: []) { c, v throws(ConfigError) in
            guard case .strings(let list) = v else { return }
            var parsed: [SocketAddress] = []
            for text in list {
                do throws(SocketAddress.ParseError) {
                    parsed.append(try SocketAddress(parsing: text))
                } catch {
                    throw ConfigError(key: name, message: error.description)
                }
            }
            c[keyPath: path] = parsed
        }
    }

    /// A list of addresses or CIDR blocks, checked when read.
    static func networks(
        _ name: String, _ path: WritableKeyPath<Configuration, [String]> & Sendable
    )
        -> ConfigurationKey
    {
        ConfigurationKey(name: name, kind: .strings, extraEnvironmentNames: []) { c, v throws(ConfigError) in
            guard case .strings(let list) = v else { return }
            if case .failure(let error) = IPNetworkSet.parse(list) {
                throw ConfigError(key: name, message: error.description)
            }
            c[keyPath: path] = list
        }
    }

    static let logLevels = ["trace", "debug", "info", "notice", "warning", "error", "critical"]

    static let all: [ConfigurationKey] = [
        addresses("server.listen", \.listen),
        integer("server.threads", 0...256, \.threads),
        integer("server.backlog", 1...65535, \.backlog),
        integer("server.max_connections", 0...1_000_000, \.maxConnections),
        boolean("server.echo_endpoint", \.echoEndpoint),
        integer("server.shutdown_grace_s", 0...3600, \.shutdownGraceSeconds),
        integer("server.max_connections_per_ip", 0...1_000_000, \.maxConnectionsPerIP),
        integer("server.connection_rate_per_ip", 0...1_000_000, \.connectionRatePerIP),
        integer("server.connection_burst_per_ip", 1...1_000_000, \.connectionBurstPerIP),
        networks("server.ip_limit_exempt", \.ipLimitExempt),
        networks("server.trusted_proxies", \.trustedProxies),
        integer("server.ip_table_entries", 64...1 << 24, \.ipTableEntries),
        addresses("tls.listen", \.tlsListen),
        string("tls.certificate", \.tlsCertificate),
        string("tls.private_key", \.tlsPrivateKey),
        integer("http.max_request_line_bytes", 64...1 << 20, \.maxRequestLineBytes),
        integer("http.max_header_count", 1...1000, \.maxHeaderCount),
        integer("http.max_header_bytes", 256...1 << 20, \.maxHeaderBytes),
        integer("http.max_body_bytes", 0...1 << 30, \.maxBodyBytes),
        integer("http.header_timeout_s", 1...3600, \.headerTimeoutSeconds),
        integer("http.keep_alive_timeout_s", 1...86400, \.keepAliveTimeoutSeconds),
        integer("websocket.max_message_bytes", 1024...1 << 30, \.maxMessageBytes),
        integer("websocket.echo_max_message_bytes", 125...1 << 30, \.echoMaxMessageBytes),
        strings("websocket.allowed_origins", \.allowedOrigins),
        integer("websocket.heartbeat_s", 1...3600, \.heartbeatSeconds),
        integer("websocket.max_outbound_bytes", 4096...1 << 30, \.maxOutboundBytes),
        integer("websocket.kernel_send_buffer_bytes", 0...1 << 26, \.kernelSendBufferBytes),
        boolean("websocket.deflate.enabled", \.deflateEnabled),
        boolean("websocket.deflate.server_no_context_takeover", \.deflateServerNoContextTakeover),
        integer("websocket.deflate.server_max_window_bits", 8...15, \.deflateServerMaxWindowBits),
        integer("websocket.deflate.compression_level", 1...9, \.deflateCompressionLevel),
        integer("websocket.deflate.memory_level", 1...9, \.deflateMemoryLevel),
        integer("websocket.deflate.min_bytes", 0...1 << 20, \.deflateMinimumBytes),
        string("database.url", env: ["SWITCHBOARD_DATABASE_URL"], \.databaseURL),
        string("auth.jwt_secret", env: ["SWITCHBOARD_JWT_SECRET"], \.jwtSecret),
        integer("auth.timeout_s", 1...3600, \.authTimeoutSeconds),
        integer("auth.clock_skew_s", 0...3600, \.authClockSkewSeconds),
        boolean("auth.dev_tokens", \.devTokens),
        string("auth.dev_workspace_id", \.devWorkspaceID),
        integer("auth.dev_token_ttl_s", 60...86400, \.devTokenTTLSeconds),
        boolean("web.enabled", \.webEnabled),
        integer("chat.max_body_bytes", 1...1 << 24, \.chatMaxBodyBytes),
        integer("chat.replay_limit", 1...100_000, \.chatReplayLimit),
        integer("chat.max_joined_sessions", 1...100_000, \.chatMaxJoinedSessions),
        integer("chat.inbox_page_size", 1...1000, \.chatInboxPageSize),
        integer("chat.rate_per_second", 1...1_000_000, \.chatRatePerSecond),
        integer("chat.rate_burst", 1...1_000_000, \.chatRateBurst),
        integer("chat.rate_strikes", 1...1_000_000, \.chatRateStrikes),
        integer("readers.threads", 1...256, \.readerThreads),
        integer("readers.queue_capacity", 1...1 << 22, \.readerQueueCapacity),
        integer("readers.read_interval_ms", 0...1000, \.readerReadIntervalMilliseconds),
        integer("writer.connections", 1...64, \.writerConnections),
        string("cluster.bus", \.clusterBus),
        string("cluster.nats_url", \.natsURL),
        string("cluster.node_id", \.nodeID),
        integer("writer.max_batch_messages", 1...100_000, \.writerMaxBatchMessages),
        integer("writer.max_batch_delay_ms", 0...10_000, \.writerMaxBatchDelayMilliseconds),
        integer("writer.min_batch_interval_us", 0...1_000_000, \.writerMinBatchIntervalMicroseconds),
        integer("writer.split_mark_messages", 1...100_000, \.writerSplitMarkMessages),
        integer("writer.pipeline_depth", 1...64, \.writerPipelineDepth),
        integer("writer.queue_capacity", 1...1 << 24, \.writerQueueCapacity),
        string("routing.mode", \.routingMode),
        integer("routing.max_sessions_per_operator", 1...10_000, \.routingMaxSessionsPerOperator),
        integer("routing.offline_grace_s", 1...86_400, \.routingOfflineGraceSeconds),
        boolean("routing.requeue_on_offline", \.routingRequeueOnOffline),
        integer("routing.heartbeat_s", 1...3600, \.routingHeartbeatSeconds),
        boolean("attachments.enabled", \.attachmentsEnabled),
        ConfigurationKey(name: "attachments.storage", kind: .string, extraEnvironmentNames: []) {
            c, v throws(ConfigError) in
            guard case .string(let storage) = v, ["postgres", "filesystem"].contains(storage) else {
                throw ConfigError(key: "attachments.storage", message: "must be postgres or filesystem")
            }
            c.attachmentsStorage = storage
        },
        string("attachments.path", \.attachmentsPath),
        integer("attachments.max_bytes", 1...1 << 34, \.attachmentsMaxBytes),
        strings("attachments.allowed_types", \.attachmentsAllowedTypes),
        integer("attachments.url_ttl_s", 60...31_536_000, \.attachmentsURLTTLSeconds),
        integer("attachments.orphan_ttl_s", 60...31_536_000, \.attachmentsOrphanTTLSeconds),
        integer("attachments.retention_days", 0...36_500, \.attachmentsRetentionDays),
        integer("attachments.max_in_flight_bytes", 1 << 18...1 << 40, \.attachmentsMaxInFlightBytes),
        integer("attachments.session_quota_bytes", 1...1 << 50, \.attachmentsSessionQuotaBytes),
        integer("attachments.uploads_per_minute", 0...1_000_000, \.attachmentsUploadsPerMinute),
        integer("attachments.workers", 1...256, \.attachmentsWorkers),
        integer("attachments.max_image_pixels", 1...1 << 40, \.attachmentsMaxImagePixels),
        integer("attachments.max_write_bytes_per_second", 0...1 << 40, \.attachmentsMaxWriteBytesPerSecond),
        boolean("webhooks.enabled", \.webhooksEnabled),
        boolean("webhooks.allow_private_targets", \.webhooksAllowPrivateTargets),
        integer("webhooks.timeout_s", 1...300, \.webhooksTimeoutSeconds),
        integer("webhooks.connect_timeout_s", 1...300, \.webhooksConnectTimeoutSeconds),
        integer("webhooks.disable_after_hours", 1...8760, \.webhooksDisableAfterHours),
        integer("webhooks.threads", 1...64, \.webhooksThreads),
        integer("webhooks.max_concurrent", 1...4096, \.webhooksMaxConcurrent),
        integer("webhooks.max_concurrent_per_endpoint", 1...1024, \.webhooksMaxConcurrentPerEndpoint),
        integer("webhooks.hold_rounds", 1...64, \.webhooksHoldRounds),
        integer("webhooks.dispatch_busy_share_percent", 1...100, \.webhooksDispatchBusySharePercent),
        integer("webhooks.poll_interval_ms", 10...60_000, \.webhooksPollIntervalMilliseconds),
        boolean("webhooks.hand_off", \.webhooksHandOff),
        integer("webhooks.retry_divisor", 1...1_000_000, \.webhooksRetryDivisor),
        integer("webhooks.backlog_interval_ms", 10...60_000, \.webhooksBacklogIntervalMilliseconds),
        integer("webhooks.backlog_busy_share_percent", 1...100, \.webhooksBacklogBusySharePercent),
        integer("webhooks.backlog_pass_interval_ms", 0...1000, \.webhooksBacklogPassIntervalMilliseconds),
        integer("search.index_interval_ms", 10...60_000, \.searchIndexIntervalMilliseconds),
        integer("search.index_busy_share_percent", 1...100, \.searchIndexBusySharePercent),
        ConfigurationKey(name: "log.level", kind: .string, extraEnvironmentNames: []) { c, v throws(ConfigError) in
            guard case .string(let level) = v, logLevels.contains(level) else {
                throw ConfigError(key: "log.level", message: "must be one of \(logLevels.joined(separator: ", "))")
            }
            c.logLevel = level
        },
    ]
}
