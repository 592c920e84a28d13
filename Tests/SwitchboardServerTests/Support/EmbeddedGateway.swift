import Logging
import SwitchboardAdmission
import SwitchboardChatCore
import SwitchboardEmbedded

@testable import SwitchboardServer

extension EmbeddedLoop: LoopExecutor {}

/// The gateway's handlers in-process, without a socket: the server's context
/// (routes, limits, the chat service on its database) over in-memory
/// connections on embedded loops, which the test's own thread runs. Time
/// moves only when the test says (`advance`); the database threads answer
/// through the loops' queues, run while a client reads (`runPending`).
final class EmbeddedGateway: TestGateway {
    let context: ServerContext
    let loops: [EmbeddedLoop]
    private var nextLoop = 0
    private var stopped = false

    /// The same defaults as `RunningServer` (`Configuration.forTests`).
    init(
        attachments: (any AttachmentBackend)? = nil, attachmentSizes: AttachmentService.Sizes = .standard,
        _ configure: (inout Configuration) -> Void = { _ in }
    ) throws {
        let configuration = try Configuration.forTests(configure)
        let logger = Logger.forTests("test-gateway")
        context = try ServerContext(
            configuration: configuration, logger: logger, attachmentBackend: attachments,
            attachmentSizes: attachmentSizes)
        loops = (0..<configuration.effectiveThreads).map { EmbeddedLoop(index: $0) }
        context.chat?.attach(loops.map { LoopHandoff(index: $0.index, loop: $0, logger: logger) })
        context.attachmentStore?.start()
        context.searchIndexer?.start()
        context.webhookExpander?.start()
    }

    func connect() throws -> any ClientStream { client() }

    /// Whether threads other than the test's may still queue work for the loops.
    var hasDatabaseThreads: Bool { context.chat != nil }

    /// A client from `peer` (loopback, as a socket test's), admitted as
    /// `Server.accept` admits one and served by HTTP, on the loops in turn.
    func client(from peer: IPAddress = IPAddress(ipv4: 0x7f00_0001), timeoutSeconds: Int = 5) -> EmbeddedClient {
        let loop = loops[nextLoop % loops.count]
        nextLoop += 1
        let connection = EmbeddedConnection(loop: loop, maxOutboundBytes: context.configuration.maxOutboundBytes)
        switch context.admission.admit(peer: peer, nowMilliseconds: loop.now) {
        case .refuse(let reason, let response):
            context.admission.count(reason)
            connection.write(response)
            connection.closeAfterFlush()
        case .admit(let ticket, let viaTrustedProxy):
            let handler = HTTPConnectionHandler<EmbeddedConnection>(
                context: context, viaTrustedProxy: viaTrustedProxy, peer: peer)
            connection.handler = handler
            connection.closeObserver = ticket
            handler.start(on: connection)
        }
        return EmbeddedClient(connection, of: self, timeoutSeconds: timeoutSeconds)
    }

    /// Runs what the database threads and the other loops queued; true if anything ran.
    @discardableResult
    func runPending() -> Bool {
        var ran = false
        for loop in loops where loop.runPending() { ran = true }
        return ran
    }

    /// Moves every loop's clock on, firing the deadlines that pass (timeouts, heartbeats).
    func advance(by milliseconds: UInt64) {
        for loop in loops { loop.advance(by: milliseconds) }
        runPending()
    }

    /// What `Server.shutdown` asks of every open connection.
    func beginShutdown() {
        for loop in loops {
            for connection in loop.connections { GracefulShutdownRequest.send(to: connection) }
        }
    }

    /// Closes what is still open and stops the database threads.
    func stop() {
        guard !stopped else { return }
        stopped = true
        for loop in loops {
            for connection in loop.connections { connection.closeNow() }
        }
        runPending()
        for loop in loops { loop.stop() }
        context.attachmentStore?.stop()
        context.searchIndexer?.stop()
        context.webhookExpander?.stop()
        context.chat?.stop()
    }
}
