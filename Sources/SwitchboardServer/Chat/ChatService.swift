import Logging
import SwitchboardAttachments
import SwitchboardAuth
import SwitchboardChat
import SwitchboardChatCore
import SwitchboardCluster
import SwitchboardMetrics
import SwitchboardNATS
import SwitchboardReaders
import SwitchboardRouting
import SwitchboardSystem
import SwitchboardWriter

/// The chat protocol's shared, immutable parts: settings, token checks, the
/// reader pool, the batched writer, and one `ChatCore` per event loop. The
/// writer's results pass through here on its threads, on their way to the cores.
///
/// Threading: `attach` runs once on the main thread before any loop or
/// writer thread starts; after that everything here is immutable or
/// synchronized.
final class ChatService: Sendable {
    let settings: ChatSettings
    let verifier: TokenVerifier
    /// Signs the URLs of attachments in messages, keyed from the JWT secret.
    let attachmentSigner: AttachmentURLSigner
    /// The history API's links: the cores' signer and URL lifetime, on the wall clock.
    let attachmentLinks: AttachmentLinks
    let readers: ReaderPool
    let writer: BatchWriter
    let cores: ChatCores
    /// The other gateway nodes sharing the database (`cluster.bus`).
    let cluster: ClusterLink
    /// Who gets which session (docs/routing.md).
    let routing: RoutingService
    /// Every workspace's business hours, kept for `availability` (docs/routing.md).
    let businessHours: BusinessHoursBook
    let logger: Logger
    let metrics: GatewayMetrics
    /// The webhook API's address policy and the dispatcher's wake-up (docs/webhooks.md).
    let webhooks: WebhookHooks

    /// The NOTIFY channel of `cluster.bus = "postgres"`.
    static let notifyChannel = "switchboard"

    init(configuration: Configuration, logger: Logger, metrics: GatewayMetrics) throws {
        self.metrics = metrics
        self.logger = logger
        let webhooks = WebhookHooks(configuration)
        self.webhooks = webhooks
        settings = ChatSettings(configuration)
        verifier = TokenVerifier(secret: configuration.jwtSecret, clockSkewSeconds: settings.clockSkewSeconds)
        attachmentSigner = AttachmentURLSigner(jwtSecret: Array(configuration.jwtSecret.utf8))
        attachmentLinks = AttachmentLinks(
            signer: attachmentSigner, ttlSeconds: settings.attachmentURLTTLSeconds, clock: UnixClock.nowSeconds)
        readers = ReaderPool(
            databaseURL: configuration.databaseURL, threads: configuration.readerThreads,
            queueCapacity: configuration.readerQueueCapacity)
        let cores = ChatCores()
        self.cores = cores
        let nodeID = configuration.nodeID.isEmpty ? NodeIdentity.defaultID() : configuration.nodeID
        let bus: any ClusterBus
        switch configuration.clusterBus {
        case "postgres":
            bus = try PostgresBus(databaseURL: configuration.databaseURL, channel: Self.notifyChannel, node: nodeID)
        case "nats":
            do throws(NATSError) {
                bus = try NATSBus(url: configuration.natsURL, node: nodeID)
            } catch {
                throw ConfigError(key: "cluster.nats_url", message: error.description)
            }
        default:
            bus = NoBus()
        }
        let cluster = ClusterLink(bus: bus, nodeID: nodeID, cores: cores, metrics: metrics, logger: logger)
        self.cluster = cluster
        let clustered = !(bus is NoBus)
        if clustered { cores.cluster = cluster }
        let readers = readers
        let businessHours = BusinessHoursBook(zones: ZoneCatalog()) { job in readers.submit(job) }
        self.businessHours = businessHours
        let routing = RoutingService(
            settings: RoutingSettings(configuration), node: nodeID, store: PooledRoutingStore(pool: readers),
            cores: cores, metrics: metrics, logger: logger, businessHours: businessHours)
        self.routing = routing
        cores.routing = routing
        cluster.routing = routing
        writer = BatchWriter(
            configuration: WriterConfiguration(
                databaseURL: configuration.databaseURL, maxBatchMessages: configuration.writerMaxBatchMessages,
                maxBatchDelayMilliseconds: configuration.writerMaxBatchDelayMilliseconds,
                minBatchIntervalMicroseconds: configuration.writerMinBatchIntervalMicroseconds,
                splitMarkMessages: configuration.writerSplitMarkMessages,
                queueCapacity: configuration.writerQueueCapacity, pipelineDepth: configuration.writerPipelineDepth,
                connections: configuration.writerConnections),
            connectionEvents: { [logger] event in
                switch event {
                case .connectFailed(let connection, let reason):
                    logger.error("writer connection \(connection) cannot connect to the database: \(reason) (retrying)")
                case .lost(let connection?, let reason):
                    logger.warning(
                        "writer connection \(connection) lost its database connection: \(reason) (reconnecting all)")
                case .lost(nil, let reason):
                    logger.warning("writer: \(reason) (reconnecting all)")
                case .restored(let failedAttempts):
                    logger.notice("writer connected again after \(failedAttempts) failed attempts")
                }
            }
        ) { batch in
            metrics.count(batch)
            let stored = CommittedMessages(batch)
            cores.everyCore(fromDatabaseThread: { $0.committed(batch, stored) })
            if clustered { cluster.publish(stored) }
            routing.committed(batch)
            if batch.webhookBacklog > 0 { webhooks.backlogHasWork() }
        }
    }

    /// Binds one core to each loop and starts the database threads.
    func attach(_ handoffs: [LoopHandoff]) {
        cores.attach(handoffs) { index, handoff in
            ChatCore(
                loopIndex: index, settings: settings, verifier: verifier, attachmentSigner: attachmentSigner,
                store: writer,
                reader: PooledSessionReader(pool: readers, loop: handoff), loop: handoff.loop, cores: cores,
                metrics: metrics,
                logger: logger)
        }
        metrics.export(writer)
        readers.start()
        businessHours.loadNow()
        writer.start()
        cluster.start()
        routing.start()
    }

    /// Stops the database threads once the loops are done with them.
    func stop() {
        routing.stop()
        cluster.stop()
        writer.stop()
        readers.stop()
    }

    /// `session.updated` for a session changed outside the socket protocol
    /// (the HTTP API), from a reader thread: to its subscribers and its
    /// workspace's inbox on every loop, after the change's event (if any)
    /// to the session's subscribers; then routing hears of it. `byHand`:
    /// the change asked for an assignment (counted as a manual one when it
    /// stored its event).
    func announce(_ session: SessionInfo, event message: ChatMessage? = nil, byHand: Bool = false) {
        cores.announce(fromDatabaseThread: [SessionChange(session: session, event: message, changed: true)])
        if byHand && message != nil { metrics.routingAssignments(mode: "manual").increment() }
        routing.changed(session)
    }
}
