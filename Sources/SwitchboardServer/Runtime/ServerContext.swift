import Logging
import SwitchboardDeflate
import SwitchboardHTTP
import SwitchboardMetrics
import SwitchboardTLS
import SwitchboardWebSocket

/// What the gateway serves at each path.
enum Route: Sendable {
    case health
    case echo
    case chat
    case ready
    case metrics
    case conversations
    case sessionMessages
    case sessionPatch
    case sessionDelete
    case analytics
}

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
    let router: HTTPRouter<Route>
    let logger: Logger
    let metrics = GatewayMetrics()

    var headerTimeoutMilliseconds: UInt64 { UInt64(configuration.headerTimeoutSeconds) * 1000 }
    var keepAliveTimeoutMilliseconds: UInt64 { UInt64(configuration.keepAliveTimeoutSeconds) * 1000 }
    var heartbeatMilliseconds: UInt64 { UInt64(configuration.heartbeatSeconds) * 1000 }

    /// The compressors of the loop numbered `index`, if the server runs it.
    func deflaters(forLoop index: Int) -> SharedDeflaters? {
        loopDeflaters.indices.contains(index) ? loopDeflaters[index] : nil
    }

    init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        httpLimits = HTTPLimits(
            maxRequestLineBytes: configuration.maxRequestLineBytes,
            maxHeaderCount: configuration.maxHeaderCount,
            maxHeaderBytes: configuration.maxHeaderBytes,
            maxBodyBytes: configuration.maxBodyBytes)
        echoWebSocket = WebSocketConfiguration(maxMessageBytes: configuration.echoMaxMessageBytes)
        chatWebSocket = WebSocketConfiguration(maxMessageBytes: configuration.maxMessageBytes)
        chat =
            configuration.databaseURL.isEmpty
            ? nil : ChatService(configuration: configuration, logger: logger, metrics: metrics)
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
        var router = HTTPRouter<Route>()
        router.add(.get, "/healthz", .health)
        if configuration.echoEndpoint { router.add(.get, "/v1/echo", .echo) }
        router.add(.get, "/readyz", .ready)
        router.add(.get, "/metrics", .metrics)
        if chat != nil {
            router.add(.get, "/v1/ws", .chat)
            router.add(.get, "/api/v1/admin/live-chat/conversations", .conversations)
            router.add(.get, "/api/v1/sessions/{id}/messages", .sessionMessages)
            router.add(.patch, "/api/v1/sessions/{id}", .sessionPatch)
            router.add(.delete, "/api/v1/sessions/{id}", .sessionDelete)
            router.add(.get, "/api/v1/admin/live-chat/analytics", .analytics)
        }
        self.router = router
    }
}
