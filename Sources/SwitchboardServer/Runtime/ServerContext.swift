import Logging
import SwitchboardAttachmentStore
import SwitchboardDeflate
import SwitchboardHTTP
import SwitchboardLoop
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardTLS
import SwitchboardWebSocket

/// The settings every connection handler needs, derived once from the
/// configuration and shared read-only by all loops.
final class ServerContext: Sendable {
    let configuration: Configuration
    let httpLimits: HTTPLimits
    let echoWebSocket: WebSocketConfiguration
    let chatWebSocket: WebSocketConfiguration
    /// The chat protocol; nil when no database is configured.
    let chat: ChatService?
    let deflate: DeflateConfiguration
    /// One set of compressors per event loop (index = `EventLoop.index`), each
    /// used only on its loop's thread, for sessions without context takeover.
    let loopDeflaters: [SharedDeflaters]
    let tls: TLSContext?
    /// Browser origins allowed to use the WebSocket and the HTTP API (`websocket.allowed_origins`).
    let allowedOrigins: AllowedOrigins
    /// Path to route; `Routes` says what each route answers.
    let router: HTTPRouter<HTTPRoute>
    let logger: Logger
    let metrics = GatewayMetrics()
    /// Which event loops are saturated: background work yields to them (`gatewayBusy`).
    let loopSaturation = LoopSaturation()
    /// Per-address limits and trusted proxies (docs/limits.md).
    let admission: AdmissionControl
    /// Uploads and downloads (docs/attachments.md); nil when disabled, without
    /// a database, or without storage.
    let attachments: AttachmentService?
    /// What the HTTP parser streams (an upload's body, held to
    /// `attachments.max_bytes`) rather than buffers.
    let streamedBodyLimit: @Sendable (HTTPMethod, String) -> Int?

    /// New jobs (an upload's start, a lookup, a read) waiting per attachment
    /// worker; more: 503. An upload's pieces are bounded by its window instead.
    static let attachmentQueueCapacity = 1024

    var headerTimeoutMilliseconds: UInt64 { UInt64(configuration.headerTimeoutSeconds) * 1000 }
    var keepAliveTimeoutMilliseconds: UInt64 { UInt64(configuration.keepAliveTimeoutSeconds) * 1000 }
    var heartbeatMilliseconds: UInt64 { UInt64(configuration.heartbeatSeconds) * 1000 }

    /// The compressors of the loop numbered `index`, if the server runs it.
    func deflaters(forLoop index: Int) -> SharedDeflaters? {
        loopDeflaters.indices.contains(index) ? loopDeflaters[index] : nil
    }

    /// The attachment workers, when this context made them (`start`/`stop` are the server's).
    let attachmentStore: AttachmentStore?
    /// The webhook dispatcher and its gauges (`start`/`stop` are the server's); nil
    /// without a database or with `webhooks.enabled = false`.
    let webhookRuntime: WebhookRuntime?
    /// Indexes stored messages for search (migration 20; `start`/`stop` are
    /// the server's); nil without a database.
    let searchIndexer: SearchIndexer?
    /// The webhook events of stored messages (`start`/`stop` are the
    /// server's); nil without a database. Runs whether or not this node dispatches.
    let webhookExpander: WebhookExpander?

    /// `attachmentBackend`: where attachments are stored; nil, the attachment
    /// workers on the database (`attachments.storage`), whose images
    /// `imageInspector` measures and thumbnails.
    init(
        configuration: Configuration, logger: Logger, attachmentBackend: (any AttachmentBackend)? = nil,
        attachmentSizes: AttachmentService.Sizes = .standard, imageInspector: ImageInspector? = nil
    ) throws {
        self.configuration = configuration
        self.logger = logger
        admission = AdmissionControl(configuration: configuration, metrics: metrics)
        allowedOrigins = AllowedOrigins(configuration.allowedOrigins)
        httpLimits = HTTPLimits(
            maxRequestLineBytes: configuration.maxRequestLineBytes,
            maxHeaderCount: configuration.maxHeaderCount,
            maxHeaderBytes: configuration.maxHeaderBytes,
            maxBodyBytes: configuration.maxBodyBytes)
        echoWebSocket = WebSocketConfiguration(maxMessageBytes: configuration.echoMaxMessageBytes)
        chatWebSocket = WebSocketConfiguration(maxMessageBytes: configuration.maxMessageBytes)
        chat =
            configuration.databaseURL.isEmpty
            ? nil : try ChatService(configuration: configuration, logger: logger, metrics: metrics)
        deflate = DeflateConfiguration(
            enabled: configuration.deflateEnabled,
            serverNoContextTakeover: configuration.deflateServerNoContextTakeover,
            serverMaxWindowBits: configuration.deflateServerMaxWindowBits,
            compressionLevel: configuration.deflateCompressionLevel,
            minimumCompressSize: configuration.deflateMinimumBytes,
            memLevel: configuration.deflateMemoryLevel)
        loopDeflaters = (0..<configuration.effectiveThreads).map { [deflate] _ in
            SharedDeflaters(configuration: deflate)
        }
        if configuration.tlsListen.isEmpty {
            tls = nil
        } else {
            tls = try TLSContext(
                configuration: TLSConfiguration(
                    certificatePath: configuration.tlsCertificate, privateKeyPath: configuration.tlsPrivateKey))
        }
        router = Routes.router(configuration, database: chat != nil)
        if configuration.attachmentsEnabled, let chat {
            let store =
                attachmentBackend == nil
                ? AttachmentStore(
                    databaseURL: configuration.databaseURL,
                    storage: configuration.attachmentsStorage == "filesystem"
                        ? .filesystem(path: configuration.attachmentsPath) : .postgres,
                    workers: configuration.attachmentsWorkers, queueCapacity: Self.attachmentQueueCapacity,
                    inspector: imageInspector
                        ?? ThumbnailInspector.make(maxPixels: configuration.attachmentsMaxImagePixels),
                    maxImageBytes: Int64(configuration.attachmentsMaxBytes),
                    maxWriteBytesPerSecond: configuration.attachmentsMaxWriteBytesPerSecond)
                : nil
            attachmentStore = store
            attachments = AttachmentService(
                configuration: configuration, backend: attachmentBackend ?? store!, chat: chat, metrics: metrics,
                exempt: admission.exempt, sizes: attachmentSizes)
        } else {
            attachmentStore = nil
            attachments = nil
        }
        if let chat {
            WebhookRuntime.installTargetCheck(on: chat.webhooks)
        }
        // Background work after the commit (search, webhooks) yields while this node is saturated: its
        // writer behind, or an event loop with no idle time (their threads and database backends share
        // the loops' cores).
        metrics.setPullSource(for: metrics.eventLoopsSaturated) { [loopSaturation] in
            Double(loopSaturation.saturatedCount)
        }
        let gatewayBusy: @Sendable () -> Bool = { [weak writer = chat?.writer, loopSaturation] in
            (writer?.isBehind ?? false) || loopSaturation.anySaturated
        }
        if configuration.webhooksEnabled, let chat {
            webhookRuntime = WebhookRuntime(
                configuration: configuration, hooks: chat.webhooks, metrics: metrics, logger: logger,
                gatewayBusy: gatewayBusy)
        } else {
            webhookRuntime = nil
        }
        let metrics = metrics
        searchIndexer = chat.map { chat in
            SearchIndexer(
                databaseURL: configuration.databaseURL,
                pacing: AfterCommitPacing(
                    idleMilliseconds: configuration.searchIndexIntervalMilliseconds,
                    busySharePercent: configuration.searchIndexBusySharePercent),
                metrics: metrics, logger: logger, gatewayBusy: gatewayBusy)
        }
        let dispatcher = configuration.webhooksHandOff ? webhookRuntime?.dispatcher : nil
        webhookExpander = chat.map { chat in
            let hooks = chat.webhooks
            let expander = WebhookExpander(
                databaseURL: configuration.databaseURL,
                pacing: AfterCommitPacing(
                    idleMilliseconds: configuration.webhooksBacklogIntervalMilliseconds,
                    busySharePercent: configuration.webhooksBacklogBusySharePercent,
                    passIntervalMilliseconds: configuration.webhooksBacklogPassIntervalMilliseconds),
                metrics: metrics, logger: logger, dispatcher: dispatcher,
                gatewayBusy: gatewayBusy,
                deliveriesLeftDue: { hooks.outboxHasWork() })
            hooks.setBacklogWakeup { [weak expander] in expander?.wake() }
            dispatcher?.whenRoomFrees { [weak expander] in expander?.wake() }
            return expander
        }
        let router = router
        let maxBytes = configuration.attachmentsMaxBytes
        streamedBodyLimit = { method, path in
            guard method == .post, case .found(.attachmentUpload, _) = router.match(method: method, path: path) else {
                return nil
            }
            return maxBytes
        }
    }
}
