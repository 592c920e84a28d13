import SwitchboardRouting
import Testing

@testable import SwitchboardServer

@Suite struct ConfigurationTests {
    @Test func fileValuesApply() throws {
        let text = """
            # comment
            [server]
            listen = ["127.0.0.1:9000", "[::1]:9001"]  # trailing comment
            threads = 3
            echo_endpoint = true

            [websocket.deflate]
            enabled = false
            [http]
            max_body_bytes = 2_048
            """
        var c = Configuration()
        try c.apply(file: ConfigFileParser.parse(text, source: "test.toml"))
        #expect(c.listen.map(\.description) == ["127.0.0.1:9000", "[::1]:9001"])
        #expect(c.threads == 3)
        #expect(c.echoEndpoint)
        #expect(!c.deflateEnabled)
        #expect(c.maxBodyBytes == 2048)
    }

    @Test func unknownKeyIsNamed() throws {
        var c = Configuration()
        let error = #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[server]\nthreadz = 2\n", source: "x.toml"))
        }
        #expect(error?.key == "server.threadz")
    }

    @Test func wrongTypeAndRangeAreNamed() throws {
        var c = Configuration()
        let wrongType = #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[server]\nthreads = \"two\"\n", source: "x.toml"))
        }
        #expect(wrongType?.key == "server.threads")
        let outOfRange = #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[websocket.deflate]\nserver_max_window_bits = 16\n", source: "x"))
        }
        #expect(outOfRange?.key == "websocket.deflate.server_max_window_bits")
        let badAddress = #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[server]\nlisten = [\"localhost\"]\n", source: "x"))
        }
        #expect(badAddress?.key == "server.listen")
    }

    @Test func malformedLinesAreRefusedWithTheirLocation() {
        let error = #expect(throws: ConfigError.self) {
            try ConfigFileParser.parse("[server]\nlisten = [\"a:1\",\n", source: "bad.toml")
        }
        #expect(error?.description.contains("bad.toml:2") == true)
    }

    @Test func precedenceIsFileThenEnvironmentThenFlags() throws {
        let c = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "SWITCHBOARD_SERVER_THREADS": "5", "SWITCHBOARD_DATABASE_URL": "postgresql://env/db",
                "SWITCHBOARD_JWT_SECRET": "from-env-and-at-least-32-bytes-long",
                "SWITCHBOARD_WEBSOCKET_DEFLATE_ENABLED": "off",
            ],
            overrides: ConfigurationOverrides(listen: ["127.0.0.1:0"], threads: 2))
        #expect(c.threads == 2)
        #expect(c.databaseURL == "postgresql://env/db")
        #expect(c.jwtSecret == "from-env-and-at-least-32-bytes-long")
        #expect(!c.deflateEnabled)
        #expect(c.listen.first?.port == 0)
    }

    @Test func aDatabaseNeedsAJWTSecretOfAtLeast32Bytes() {
        for secret in [nil, "short-secret"] {
            var environment = ["SWITCHBOARD_DATABASE_URL": "postgresql://env/db"]
            environment["SWITCHBOARD_JWT_SECRET"] = secret
            let error = #expect(throws: ConfigError.self) {
                try ConfigurationLoader.load(
                    file: nil, environment: environment, overrides: ConfigurationOverrides(listen: ["127.0.0.1:0"]))
            }
            #expect(error?.key == "auth.jwt_secret")
        }
    }

    @Test func chatBodyLimitMustFitInAMessage() {
        let error = #expect(throws: ConfigError.self) {
            try ConfigurationLoader.load(
                file: nil,
                environment: ["SWITCHBOARD_CHAT_MAX_BODY_BYTES": "65536"],
                overrides: ConfigurationOverrides(listen: ["127.0.0.1:0"]))
        }
        #expect(error?.key == "chat.max_body_bytes")
    }

    @Test func invalidEnvironmentValueIsNamed() {
        let error = #expect(throws: ConfigError.self) {
            try ConfigurationLoader.load(
                file: nil, environment: ["SWITCHBOARD_HTTP_MAX_BODY_BYTES": "lots"], overrides: .init())
        }
        #expect(error?.key == "http.max_body_bytes")
    }

    @Test func tlsListenerRequiresCertificateAndKey() {
        let error = #expect(throws: ConfigError.self) {
            try ConfigurationLoader.load(file: nil, environment: [:], overrides: .init(tlsListen: ["127.0.0.1:0"]))
        }
        #expect(error?.key == "tls.certificate")
    }

    @Test func shippedConfigFilesLoad() throws {
        for file in ["config/switchboard.toml", "config/development.toml"] {
            let path = RepositoryPath.resolve(file)
            _ = try ConfigurationLoader.load(file: path, environment: [:], overrides: .init())
        }
    }

    /// The documented default file states the built-in defaults; the accept
    /// queue is sized for reconnect storms (a full queue drops SYNs, resent
    /// only after a second).
    @Test func theDocumentedDefaultsAreTheBuiltInOnes() throws {
        let documented = try ConfigurationLoader.load(
            file: RepositoryPath.resolve("config/switchboard.toml"), environment: [:], overrides: .init())
        let builtIn = Configuration()
        #expect(builtIn.backlog == 4096)
        #expect(documented.backlog == builtIn.backlog)
        #expect(documented.threads == builtIn.threads)
        #expect(documented.maxConnections == builtIn.maxConnections)
        // Without context takeover a loop's one compressor serves every deflate
        // connection, instead of about 256 KiB of zlib state in each.
        #expect(builtIn.deflateServerNoContextTakeover)
        #expect(documented.deflateServerNoContextTakeover == builtIn.deflateServerNoContextTakeover)
        #expect(documented.maxConnectionsPerIP == builtIn.maxConnectionsPerIP)
        #expect(documented.connectionRatePerIP == builtIn.connectionRatePerIP)
        #expect(documented.connectionBurstPerIP == builtIn.connectionBurstPerIP)
        #expect(documented.ipLimitExempt == builtIn.ipLimitExempt)
        #expect(documented.trustedProxies == builtIn.trustedProxies)
        #expect(documented.ipTableEntries == builtIn.ipTableEntries)
        // Batches follow the commits: no window by default, two full batches on the wire.
        #expect(builtIn.writerMaxBatchDelayMilliseconds == 0 && builtIn.writerPipelineDepth == 2)
        #expect(documented.writerMaxBatchDelayMilliseconds == builtIn.writerMaxBatchDelayMilliseconds)
        // Partial batches at least 2 ms apart (docs/writer.md, "A batch").
        #expect(builtIn.writerMinBatchIntervalMicroseconds == 2_000)
        #expect(documented.writerMinBatchIntervalMicroseconds == builtIn.writerMinBatchIntervalMicroseconds)
        // The first connection carries every session until 256 wait (docs/writer.md, "Connections").
        #expect(builtIn.writerSplitMarkMessages == 256)
        #expect(documented.writerSplitMarkMessages == builtIn.writerSplitMarkMessages)
        #expect(documented.writerPipelineDepth == builtIn.writerPipelineDepth)
        #expect(documented.writerConnections == builtIn.writerConnections)
        #expect(documented.writerMaxBatchMessages == builtIn.writerMaxBatchMessages)
        #expect(RoutingSettings(documented) == RoutingSettings(builtIn))
        let webhooks: [KeyPath<Configuration, Int>] = [
            \.webhooksTimeoutSeconds, \.webhooksConnectTimeoutSeconds, \.webhooksDisableAfterHours, \.webhooksThreads,
            \.webhooksMaxConcurrent, \.webhooksMaxConcurrentPerEndpoint, \.webhooksHoldRounds,
            \.webhooksDispatchBusySharePercent,
            \.webhooksPollIntervalMilliseconds, \.webhooksRetryDivisor,
        ]
        for key in webhooks { #expect(documented[keyPath: key] == builtIn[keyPath: key], "\(key)") }
        #expect(documented.webhooksEnabled == builtIn.webhooksEnabled)
        #expect(!builtIn.webhooksAllowPrivateTargets && !documented.webhooksAllowPrivateTargets)
        #expect(builtIn.webhooksDisableAfterHours == 72)
    }

    /// `webhooks.*`: read from the file and the environment, the hours bounded.
    @Test func webhookKeysApplyAndAreChecked() throws {
        let loaded = try ConfigurationLoader.load(
            file: nil,
            environment: [
                "SWITCHBOARD_WEBHOOKS_DISABLE_AFTER_HOURS": "24", "SWITCHBOARD_WEBHOOKS_ALLOW_PRIVATE_TARGETS": "1",
            ],
            overrides: .init())
        #expect(loaded.webhooksDisableAfterHours == 24 && loaded.webhooksAllowPrivateTargets)
        let error = #expect(throws: ConfigError.self) {
            try ConfigurationLoader.load(
                file: nil, environment: ["SWITCHBOARD_WEBHOOKS_DISABLE_AFTER_HOURS": "0"], overrides: .init())
        }
        #expect(error?.key == "webhooks.disable_after_hours")

        // The expander's pass interval: within its range, and no longer than its idle interval.
        let paced = try ConfigurationLoader.load(
            file: nil, environment: ["SWITCHBOARD_WEBHOOKS_BACKLOG_PASS_INTERVAL_MS": "0"], overrides: .init())
        #expect(paced.webhooksBacklogPassIntervalMilliseconds == 0)
        for (environment, key) in [
            (["SWITCHBOARD_WEBHOOKS_BACKLOG_PASS_INTERVAL_MS": "1001"], "webhooks.backlog_pass_interval_ms"),
            (
                [
                    "SWITCHBOARD_WEBHOOKS_BACKLOG_PASS_INTERVAL_MS": "200",
                    "SWITCHBOARD_WEBHOOKS_BACKLOG_INTERVAL_MS": "100",
                ],
                "webhooks.backlog_pass_interval_ms"
            ),
        ] {
            let refused = #expect(throws: ConfigError.self) {
                try ConfigurationLoader.load(file: nil, environment: environment, overrides: .init())
            }
            #expect(refused?.key == key, "\(environment)")
        }
    }

    /// `routing.*` (docs/routing.md): read from the file and the environment,
    /// the mode one of three, and the heartbeat at most half the grace.
    @Test func routingKeysApplyAndAreChecked() throws {
        var c = Configuration()
        try c.apply(
            file: ConfigFileParser.parse(
                """
                [routing]
                mode = "round_robin"
                max_sessions_per_operator = 8
                offline_grace_s = 4
                requeue_on_offline = false
                heartbeat_s = 2
                """, source: "test.toml"))
        try c.validate()
        #expect(
            RoutingSettings(c)
                == RoutingSettings(
                    mode: .roundRobin, maxSessionsPerOperator: 8, offlineGraceSeconds: 4, requeueOnOffline: false,
                    heartbeatSeconds: 2))
        try c.apply(environment: ["SWITCHBOARD_ROUTING_MODE": "manual"])
        #expect(RoutingSettings(c).mode == .manual)

        var unknownMode = Configuration()
        unknownMode.routingMode = "fastest"
        #expect(throws: ConfigError.self) { try unknownMode.validate() }
        var lapsing = Configuration()
        lapsing.routingHeartbeatSeconds = 20
        let lapse = #expect(throws: ConfigError.self) { try lapsing.validate() }
        #expect(lapse?.key == "routing.heartbeat_s")
        #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[routing]\nmax_sessions_per_operator = 0\n", source: "x"))
        }
        #expect(RoutingSettings(Configuration()) == RoutingSettings(), "the built-in defaults are the protocol's")
    }

    /// `[attachments]` (docs/attachments.md): the shipped file states the built-in
    /// defaults, which are the design's; the keys apply from file and environment
    /// and are checked.
    @Test func attachmentKeysApplyAndAreChecked() throws {
        let documented = try ConfigurationLoader.load(
            file: RepositoryPath.resolve("config/switchboard.toml"), environment: [:], overrides: .init())
        let builtIn = Configuration()
        #expect(builtIn.attachmentsEnabled && builtIn.attachmentsStorage == "postgres")
        #expect(builtIn.attachmentsPath == ".data/attachments")
        #expect(builtIn.attachmentsMaxBytes == 10_485_760 && builtIn.attachmentsMaxInFlightBytes == 67_108_864)
        #expect(builtIn.attachmentsSessionQuotaBytes == 104_857_600 && builtIn.attachmentsUploadsPerMinute == 30)
        #expect(builtIn.attachmentsURLTTLSeconds == 3600 && builtIn.attachmentsOrphanTTLSeconds == 86_400)
        #expect(builtIn.attachmentsRetentionDays == 30 && builtIn.attachmentsWorkers == 4)
        #expect(builtIn.attachmentsMaxImagePixels == 50_000_000)
        #expect(builtIn.attachmentTypes.count == 6)
        #expect(documented.attachmentsEnabled == builtIn.attachmentsEnabled)
        #expect(documented.attachmentsStorage == builtIn.attachmentsStorage)
        #expect(documented.attachmentsPath == builtIn.attachmentsPath)
        #expect(documented.attachmentsMaxBytes == builtIn.attachmentsMaxBytes)
        #expect(documented.attachmentsAllowedTypes == builtIn.attachmentsAllowedTypes)
        #expect(documented.attachmentsURLTTLSeconds == builtIn.attachmentsURLTTLSeconds)
        #expect(documented.attachmentsOrphanTTLSeconds == builtIn.attachmentsOrphanTTLSeconds)
        #expect(documented.attachmentsRetentionDays == builtIn.attachmentsRetentionDays)
        #expect(documented.attachmentsMaxInFlightBytes == builtIn.attachmentsMaxInFlightBytes)
        #expect(documented.attachmentsSessionQuotaBytes == builtIn.attachmentsSessionQuotaBytes)
        #expect(documented.attachmentsUploadsPerMinute == builtIn.attachmentsUploadsPerMinute)
        #expect(documented.attachmentsWorkers == builtIn.attachmentsWorkers)
        #expect(documented.attachmentsMaxImagePixels == builtIn.attachmentsMaxImagePixels)

        var c = Configuration()
        try c.apply(
            file: ConfigFileParser.parse(
                """
                [attachments]
                storage = "filesystem"
                path = "/srv/files"
                max_bytes = 1048576
                allowed_types = ["image/png", "Text/Plain; charset=utf-8"]
                uploads_per_minute = 0
                """, source: "test.toml"))
        try c.validate()
        #expect(c.attachmentsStorage == "filesystem" && c.attachmentsPath == "/srv/files")
        #expect(c.attachmentsMaxBytes == 1_048_576 && c.attachmentsUploadsPerMinute == 0)
        #expect(c.attachmentTypes == [.png, .text])
        try c.apply(environment: ["SWITCHBOARD_ATTACHMENTS_ALLOWED_TYPES": "application/pdf"])
        #expect(c.attachmentTypes == [.pdf])

        var unknownStorage = Configuration()
        unknownStorage.attachmentsStorage = "s3"
        #expect((#expect(throws: ConfigError.self) { try unknownStorage.validate() })?.key == "attachments.storage")
        var unknownType = Configuration()
        unknownType.attachmentsAllowedTypes = ["image/png", "text/html"]
        #expect((#expect(throws: ConfigError.self) { try unknownType.validate() })?.key == "attachments.allowed_types")
        var none = Configuration()
        none.attachmentsAllowedTypes = []
        #expect((#expect(throws: ConfigError.self) { try none.validate() })?.key == "attachments.allowed_types")
        #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[attachments]\nmax_in_flight_bytes = 1000\n", source: "x"))
        }
    }

    @Test func writerKeysApplyWithinTheirRanges() throws {
        var c = Configuration()
        try c.apply(
            file: ConfigFileParser.parse(
                "[writer]\npipeline_depth = 1\nmax_batch_delay_ms = 3\n", source: "test.toml"))
        #expect(c.writerPipelineDepth == 1 && c.writerMaxBatchDelayMilliseconds == 3)
        #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[writer]\npipeline_depth = 0\n", source: "test.toml"))
        }
    }

    @Test func addressLimitKeysApply() throws {
        let text = """
            [server]
            max_connections_per_ip = 10
            connection_rate_per_ip = 0
            connection_burst_per_ip = 7
            ip_limit_exempt = []
            trusted_proxies = ["10.0.0.0/8", "2001:db8::/32", "192.0.2.1"]
            ip_table_entries = 1024
            """
        var c = Configuration()
        #expect(c.maxConnectionsPerIP == 256 && c.connectionRatePerIP == 50 && c.connectionBurstPerIP == 100)
        #expect(c.ipLimitExempt == ["127.0.0.0/8", "::1/128"])
        try c.apply(file: ConfigFileParser.parse(text, source: "test.toml"))
        #expect(c.maxConnectionsPerIP == 10)
        #expect(c.connectionRatePerIP == 0)
        #expect(c.connectionBurstPerIP == 7)
        #expect(c.ipLimitExempt.isEmpty)
        #expect(c.trustedProxies == ["10.0.0.0/8", "2001:db8::/32", "192.0.2.1"])
        #expect(c.ipTableEntries == 1024)
        try c.apply(environment: [
            "SWITCHBOARD_SERVER_TRUSTED_PROXIES": "172.16.0.0/12, ::1",
            "SWITCHBOARD_SERVER_MAX_CONNECTIONS_PER_IP": "3",
        ])
        #expect(c.trustedProxies == ["172.16.0.0/12", "::1"])
        #expect(c.maxConnectionsPerIP == 3)
        try c.validate()
    }

    @Test func badAddressBlocksAreNamed() throws {
        var c = Configuration()
        let file = #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[server]\ntrusted_proxies = [\"10.0.0.0/33\"]\n", source: "x"))
        }
        #expect(file?.key == "server.trusted_proxies")
        let environment = #expect(throws: ConfigError.self) {
            try c.apply(environment: ["SWITCHBOARD_SERVER_IP_LIMIT_EXEMPT": "localhost"])
        }
        #expect(environment?.key == "server.ip_limit_exempt")
        let burst = #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[server]\nconnection_burst_per_ip = 0\n", source: "x"))
        }
        #expect(burst?.key == "server.connection_burst_per_ip")
        c.trustedProxies = ["not an address"]
        let validated = #expect(throws: ConfigError.self) { try c.validate() }
        #expect(validated?.key == "server.trusted_proxies")
    }
}

/// Finds files relative to the repository root, whatever the test's cwd.
enum RepositoryPath {
    static func resolve(_ relative: String) -> String {
        var directory = String(#filePath)
        for _ in 0..<3 {
            if let slash = directory.lastIndex(of: "/") { directory = String(directory[..<slash]) }
        }
        return directory + "/" + relative
    }
}
