import SwitchboardAdmission
import SwitchboardIdentifiers
import SwitchboardReaders
import SwitchboardRouting
import SwitchboardSystem

/// Everything the gateway reads at start-up. Defaults are production-sane;
/// `config/switchboard.toml` documents every key, and `ConfigurationKeys`
/// binds each key to its field, its environment variable and its checks.
public struct Configuration: Sendable {
    // [server]
    public var listen: [SocketAddress] = [SocketAddress(host: "0.0.0.0", port: 8080, family: .inet)]
    /// 0 means one loop per core.
    public var threads = 0
    /// Kernel accept queue per listening socket (capped by net.core.somaxconn).
    /// Room for a reconnect storm: a full queue drops SYNs, which clients
    /// resend only after a second (1,024 cost a 4,000-operator rejoin 1 s at
    /// p99 in loadtest `storm`; 4,096, 0.19 s).
    public var backlog = 4096
    /// 0 means as many as the open-file limit allows, less a reserve.
    public var maxConnections = 0
    public var echoEndpoint = false
    public var shutdownGraceSeconds = 10
    /// Per client address (an IPv4 address, an IPv6 /64): open connections,
    /// and new connections per second after a burst; 0 turns a limit off.
    /// Over either: 429 at accept (docs/limits.md).
    public var maxConnectionsPerIP = 256
    public var connectionRatePerIP = 50
    public var connectionBurstPerIP = 100
    /// Addresses or blocks the per-address limits do not apply to. Loopback by
    /// default: a reverse proxy on the same host, and the load harness and tests.
    public var ipLimitExempt = ["127.0.0.0/8", "::1/128"]
    /// Peers whose PROXY protocol header or X-Forwarded-For names the client.
    public var trustedProxies: [String] = []
    /// Addresses the limit table tracks at most; beyond, new ones pass uncounted.
    public var ipTableEntries = 65536

    // [tls]
    public var tlsListen: [SocketAddress] = []
    public var tlsCertificate = ""
    public var tlsPrivateKey = ""

    // [http]
    public var maxRequestLineBytes = 8192
    public var maxHeaderCount = 64
    public var maxHeaderBytes = 16384
    public var maxBodyBytes = 1 << 20
    public var headerTimeoutSeconds = 10
    public var keepAliveTimeoutSeconds = 75

    // [websocket]
    public var maxMessageBytes = 65536
    public var echoMaxMessageBytes = 16 << 20
    public var allowedOrigins: [String] = []
    public var heartbeatSeconds = 25
    public var maxOutboundBytes = 1 << 20
    public var kernelSendBufferBytes = 256 << 10

    // [websocket.deflate]
    public var deflateEnabled = true
    public var deflateServerNoContextTakeover = true
    public var deflateServerMaxWindowBits = 15
    public var deflateCompressionLevel = 6
    public var deflateMemoryLevel = 8
    public var deflateMinimumBytes = 256

    // [database], [auth], [log]
    public var databaseURL = ""
    public var jwtSecret = ""
    public var authTimeoutSeconds = 10
    public var authClockSkewSeconds = 60
    /// `POST /dev/token` signs tokens for anyone who asks: development only.
    public var devTokens = false
    public var devWorkspaceID = "00000000-0000-4000-8000-000000000001"
    public var devTokenTTLSeconds = 3600

    // [web]
    /// The browser clients (SDK, widget, console) and the front page.
    public var webEnabled = true
    public var logLevel = "info"

    // [chat]
    public var chatMaxBodyBytes = 8192
    public var chatReplayLimit = 500
    public var chatMaxJoinedSessions = 100
    public var chatInboxPageSize = 50
    public var chatRatePerSecond = 20
    public var chatRateBurst = 40
    public var chatRateStrikes = 10

    // [readers], [writer]
    public var readerThreads = 4
    public var readerQueueCapacity = 4096
    public var readerReadIntervalMilliseconds = 20
    public var writerConnections = 2

    // [cluster]
    /// `postgres` (LISTEN/NOTIFY), `nats`, or `none`.
    public var clusterBus = "postgres"
    public var natsURL = "nats://127.0.0.1:4222"
    /// Empty: the host name and the process id (`NodeIdentity.defaultID`).
    public var nodeID = ""
    public var writerMaxBatchMessages = 1024
    public var writerMaxBatchDelayMilliseconds = 0
    public var writerMinBatchIntervalMicroseconds = 2_000
    public var writerSplitMarkMessages = 256
    public var writerPipelineDepth = 2
    public var writerQueueCapacity = 65536

    // [routing] (docs/routing.md)
    /// `least_busy`, `round_robin` or `manual`.
    public var routingMode = "least_busy"
    public var routingMaxSessionsPerOperator = 5
    public var routingOfflineGraceSeconds = 30
    public var routingRequeueOnOffline = true
    public var routingHeartbeatSeconds = 5

    // [attachments] (docs/attachments.md)
    /// Serve the upload and download endpoints.
    public var attachmentsEnabled = true
    /// `postgres` (chunks in the database) or `filesystem` (`attachmentsPath`).
    public var attachmentsStorage = "postgres"
    public var attachmentsPath = ".data/attachments"
    /// One file; a larger upload is 413.
    public var attachmentsMaxBytes = 10 << 20
    /// Media types accepted, as sniffed from the bytes.
    public var attachmentsAllowedTypes = [
        "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain",
    ]
    /// Lifetime of a signed URL.
    public var attachmentsURLTTLSeconds = 3600
    /// An upload never sent in a message is deleted after this.
    public var attachmentsOrphanTTLSeconds = 86_400
    /// `switchboard attachments purge` deletes deleted sessions' files after this.
    public var attachmentsRetentionDays = 30
    /// Bytes received and not yet stored, all uploads together: the uploads' memory.
    public var attachmentsMaxInFlightBytes = 64 << 20
    /// Bytes stored per session.
    public var attachmentsSessionQuotaBytes = 100 << 20
    /// Uploads per minute per connection and per client address; 0: no limit.
    public var attachmentsUploadsPerMinute = 30
    /// Attachment worker threads (each with its own database connection).
    public var attachmentsWorkers = 4
    /// An image whose header declares more pixels is refused (415) before decoding.
    public var attachmentsMaxImagePixels = 50_000_000
    /// Bytes per second all attachment workers write together; 0: no bound.
    public var attachmentsMaxWriteBytesPerSecond = 2 << 20

    // [webhooks] (docs/webhooks.md)
    /// Run the dispatcher on this node (every node may: deliveries are claimed with SKIP LOCKED).
    public var webhooksEnabled = true
    /// Let endpoints resolve to loopback, private or link-local addresses (development and tests).
    public var webhooksAllowPrivateTargets = false
    /// A delivery succeeds on a 2xx within this many seconds.
    public var webhooksTimeoutSeconds = 10
    public var webhooksConnectTimeoutSeconds = 5
    /// An endpoint failing without a success for this long is disabled.
    public var webhooksDisableAfterHours = 72
    /// Dispatcher threads on this node.
    public var webhooksThreads = 2
    /// Requests in flight on this node, all endpoints together, and per endpoint.
    public var webhooksMaxConcurrent = 64
    public var webhooksMaxConcurrentPerEndpoint = 16
    /// Deliveries this node holds, in flight or waiting for a slot, as rounds
    /// of those requests: claims and the expander's hand-overs take more at a
    /// time than run at once.
    public var webhooksHoldRounds = 64
    /// While this node's writer is behind or an event loop is saturated, the
    /// share of each dispatcher thread's time its claims and records may take (100: never yield).
    public var webhooksDispatchBusySharePercent = 5
    /// How often an idle dispatcher looks for due deliveries (commits on this node wake it at once).
    public var webhooksPollIntervalMilliseconds = 1000
    /// The deliveries this node's expander makes go to its dispatcher in memory,
    /// leased at birth, as far as it has room (false: every one waits for a claim).
    public var webhooksHandOff = true
    /// Divides the retry schedule's delays (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h): for tests only.
    public var webhooksRetryDivisor = 1
    /// How often an idle webhook expander looks for messages whose events are
    /// still to be made (a commit on this node that left some wakes it at once).
    public var webhooksBacklogIntervalMilliseconds = AfterCommitPacing.webhooks.idleMilliseconds
    /// The share of its connection's time the webhook expander may take while
    /// the writer is behind or an event loop is saturated (100: it never yields).
    public var webhooksBacklogBusySharePercent = AfterCommitPacing.webhooks.busySharePercent
    /// While commits keep waking the webhook expander, the least time from one
    /// pass's start to the next's, so that each pass takes several batches (0:
    /// a pass per wake).
    public var webhooksBacklogPassIntervalMilliseconds = AfterCommitPacing.webhooks.passIntervalMilliseconds

    /// How often an idle search indexer looks for committed messages to index
    /// (a pass that found more work runs the next at once).
    public var searchIndexIntervalMilliseconds = AfterCommitPacing.search.idleMilliseconds
    /// The share of its connection's time the search indexer may take while the
    /// writer is behind (more commands wait than a batch takes) or an event loop
    /// is saturated (100: it never yields).
    public var searchIndexBusySharePercent = AfterCommitPacing.search.busySharePercent

    /// The retry schedule's scale (`RetrySchedule`'s factor).
    public var webhooksRetryScale: Double { 1 / Double(webhooksRetryDivisor) }

    public init() {}

    /// Loop threads to start: the configured number, or one per core.
    public var effectiveThreads: Int { threads > 0 ? threads : ThisProcess.availableCPUCount }

    /// Applies values from a file's text; unknown keys are errors, so a typo
    /// never silently leaves a default in place.
    public mutating func apply(file values: [String: ConfigValue]) throws(ConfigError) {
        for key in values.keys.sorted() {
            guard let binding = ConfigurationKeys.all.first(where: { $0.name == key }) else {
                throw ConfigError(key: key, message: "unknown key (see config/switchboard.toml for the list)")
            }
            try binding.apply(values[key]!, &self)
        }
    }

    /// Applies `SWITCHBOARD_*` environment variables (e.g. SWITCHBOARD_SERVER_THREADS).
    public mutating func apply(environment: [String: String]) throws(ConfigError) {
        for binding in ConfigurationKeys.all {
            for variable in binding.environmentNames {
                guard let text = environment[variable] else { continue }
                let value = try binding.parseEnvironment(text, variable: variable)
                try binding.apply(value, &self)
            }
        }
    }

    /// Checks that the values work together; the error names the key at fault.
    public func validate() throws(ConfigError) {
        if listen.isEmpty && tlsListen.isEmpty {
            throw ConfigError(key: "server.listen", message: "no address to listen on (and no tls.listen either)")
        }
        for (key, list) in [("server.ip_limit_exempt", ipLimitExempt), ("server.trusted_proxies", trustedProxies)] {
            if case .failure(let error) = IPNetworkSet.parse(list) {
                throw ConfigError(key: key, message: error.description)
            }
        }
        if chatMaxBodyBytes + 1024 > maxMessageBytes {
            throw ConfigError(
                key: "chat.max_body_bytes",
                message: "\(chatMaxBodyBytes) leaves no room for the frame around it: keep it at least 1024 below "
                    + "websocket.max_message_bytes (\(maxMessageBytes))")
        }
        if !databaseURL.isEmpty && jwtSecret.utf8.count < 32 {
            throw ConfigError(
                key: "auth.jwt_secret",
                message: jwtSecret.isEmpty
                    ? "required when database.url is set (or SWITCHBOARD_JWT_SECRET / --jwt-secret)"
                    : "must be at least 32 bytes (RFC 7518 3.2: an HS256 key as long as the hash)")
        }
        if devTokens && jwtSecret.utf8.count < 32 {
            throw ConfigError(key: "auth.dev_tokens", message: "needs auth.jwt_secret (32 bytes or more) to sign with")
        }
        if UUIDText.canonical(devWorkspaceID) == nil {
            throw ConfigError(key: "auth.dev_workspace_id", message: "\(devWorkspaceID) is not a UUID")
        }
        if !["postgres", "nats", "none"].contains(clusterBus) {
            throw ConfigError(key: "cluster.bus", message: "\(clusterBus) is not one of postgres, nats, none")
        }
        if nodeID.utf8.count > 128 || nodeID.contains(where: { $0.isNewline || $0 == "\"" || $0 == "\\" }) {
            throw ConfigError(
                key: "cluster.node_id", message: "at most 128 bytes, with no newline, quote or backslash")
        }
        if RoutingMode(rawValue: routingMode) == nil {
            throw ConfigError(
                key: "routing.mode", message: "\(routingMode) is not one of least_busy, round_robin, manual")
        }
        if routingHeartbeatSeconds * 2 > routingOfflineGraceSeconds {
            throw ConfigError(
                key: "routing.heartbeat_s",
                message: "\(routingHeartbeatSeconds) is more than half of routing.offline_grace_s "
                    + "(\(routingOfflineGraceSeconds)): a connected operator would lapse between two heartbeats")
        }
        if webhooksBacklogPassIntervalMilliseconds > webhooksBacklogIntervalMilliseconds {
            throw ConfigError(
                key: "webhooks.backlog_pass_interval_ms",
                message: "\(webhooksBacklogPassIntervalMilliseconds) is more than webhooks.backlog_interval_ms "
                    + "(\(webhooksBacklogIntervalMilliseconds)): an idle expander looks for work that often, "
                    + "so no pass could wait longer")
        }
        try validateAttachments()
        if !tlsListen.isEmpty {
            if tlsCertificate.isEmpty {
                throw ConfigError(key: "tls.certificate", message: "required when tls.listen is set")
            }
            if tlsPrivateKey.isEmpty {
                throw ConfigError(key: "tls.private_key", message: "required when tls.listen is set")
            }
        }
    }
}
