import Logging
import SwitchboardAdmission
import SwitchboardChatCore
import SwitchboardLoop
import SwitchboardSystem

/// The gateway process: one event loop per thread, each with its own
/// listening sockets (SO_REUSEPORT) and the connections it accepted.
///
/// Threading: `start`, `shutdown` and `wait` are called from the main thread;
/// everything else runs on the loops.
public final class Server: @unchecked Sendable {
    let context: ServerContext
    private let logger: Logger
    private var loops: [EventLoop] = []
    private var threads: [NamedThread] = []
    private var listeners: [[Listener]] = []
    private let maxConnectionsPerLoop: Int

    /// Every address the server listens on, with the actual port when 0 was asked for.
    /// Deletes uploads never sent (attachments.orphan_ttl_s), with the attachment workers.
    private let orphanSweeper: OrphanSweeper?
    public private(set) var boundAddresses: [(address: SocketAddress, tls: Bool)] = []

    public convenience init(configuration: Configuration, logger: Logger) throws {
        try self.init(configuration: configuration, logger: logger, attachmentBackend: nil)
    }

    /// `attachmentBackend`: where attachments are stored (tests give an in-memory one).
    init(configuration: Configuration, logger: Logger, attachmentBackend: (any AttachmentBackend)?) throws {
        self.logger = logger
        context = try ServerContext(
            configuration: configuration, logger: logger, attachmentBackend: attachmentBackend)
        orphanSweeper = context.attachmentStore.map {
            OrphanSweeper(store: $0, timeToLiveSeconds: configuration.attachmentsOrphanTTLSeconds, logger: logger)
        }
        let fileLimit = Posix.raiseOpenFileLimit()
        // Keep some descriptors for the database, logs and listeners.
        let reachable = max(16, fileLimit - 64)
        let total = configuration.maxConnections > 0 ? min(configuration.maxConnections, reachable) : reachable
        maxConnectionsPerLoop = max(1, total / configuration.effectiveThreads)
    }

    /// Binds every listener and starts the loops. Throws (and starts nothing)
    /// when an address cannot be bound.
    public func start() throws {
        Posix.ignoreSIGPIPE()
        Posix.keepFreedMemory()
        let fileLimit = Posix.raiseOpenFileLimit()
        let count = context.configuration.effectiveThreads
        for index in 0..<count {
            loops.append(
                try EventLoop(index: index, maxFileDescriptors: fileLimit, saturation: context.loopSaturation))
        }
        let plain = context.configuration.listen.map { ($0, false) }
        let secure = context.configuration.tlsListen.map { ($0, true) }
        listeners = Array(repeating: [], count: count)
        for (requested, tls) in plain + secure {
            // Port 0: the first loop's socket picks a port, the others share it.
            var address = requested
            for (index, loop) in loops.enumerated() {
                let listener = try Listener(
                    address: address, backlog: Int32(context.configuration.backlog), loop: loop,
                    onAccept: { [unowned self, unowned loop] fd, peer in
                        self.accept(fd, from: peer, on: loop, tls: tls)
                    },
                    onError: { [logger] error in logger.warning("accept failed, pausing briefly: \(error)") })
                if address.port == 0 {
                    address = SocketAddress(host: address.host, port: listener.port, family: address.family)
                }
                listeners[index].append(listener)
            }
            boundAddresses.append((address, tls))
        }
        context.chat?.attach(loops.map { LoopHandoff(index: $0.index, loop: $0, logger: logger) })
        context.attachmentStore?.start()
        orphanSweeper?.start()
        context.searchIndexer?.start()
        context.webhookExpander?.start()
        try context.webhookRuntime?.start()
        for loop in loops {
            threads.append(NamedThread.spawn(name: "switchboard-\(loop.index)") { loop.run() })
        }
        let names = boundAddresses.map { ($0.tls ? "https://" : "http://") + $0.address.description }
        logger.info("listening on \(names.joined(separator: ", ")) with \(count) event loops")
    }

    private func accept(_ fd: Int32, from peer: PeerAddress, on loop: EventLoop, tls: Bool) {
        let admission = context.admission
        guard loop.connectionCount < maxConnectionsPerLoop else {
            // At capacity: refuse at once rather than let the kernel queue grow.
            refuse(fd, .maxConnections, response: AdmissionControl.overloaded, on: loop, tls: tls)
            return
        }
        let ticket: AddressTicket?
        let viaTrustedProxy: Bool
        switch admission.admit(peer: IPAddress(high: peer.high, low: peer.low), nowMilliseconds: loop.now) {
        case .refuse(let reason, let response):
            refuse(fd, reason, response: response, on: loop, tls: tls)
            return
        case .admit(let admitted, let proxied):
            ticket = admitted
            viaTrustedProxy = proxied
        }
        var cipher: StreamCipher?
        if tls, let tlsContext = context.tls {
            do {
                cipher = try TLSCipher(context: tlsContext)
            } catch {
                logger.warning("TLS session setup failed: \(error)")
                ticket?.release(nowMilliseconds: loop.now)
                Posix.close(fd)
                return
            }
        }
        let handler = HTTPConnectionHandler<Connection>(
            context: context, viaTrustedProxy: viaTrustedProxy, tls: tls,
            peer: IPAddress(high: peer.high, low: peer.low))
        do {
            let connection = try Connection.open(
                fd: fd, loop: loop, cipher: cipher, maxOutboundBytes: context.configuration.maxOutboundBytes,
                handler: handler, priority: true)
            connection.closeObserver = ticket
            handler.start(on: connection)
        } catch {
            logger.warning("cannot register connection: \(error)")
            ticket?.release(nowMilliseconds: loop.now)
            Posix.close(fd)
        }
    }

    /// Answers and closes a refused connection without creating anything for
    /// it. A TLS client would read plain HTTP as a broken record: it gets the
    /// close alone.
    private func refuse(_ fd: Int32, _ reason: RefusalReason, response: [UInt8], on loop: EventLoop, tls: Bool) {
        context.admission.count(reason)
        loop.refuse(fd, with: tls ? [] : response)
    }

    /// Stops accepting, asks every connection to close (WebSocket: 1001), and
    /// stops the loops once they are empty or the grace period has passed.
    public func shutdown() {
        let grace = UInt64(context.configuration.shutdownGraceSeconds) * 1000
        for (index, loop) in loops.enumerated() {
            nonisolated(unsafe) let owned = listeners[index]
            let task: @Sendable () -> Void = {
                for listener in owned { listener.close() }
                loop.forEachConnection { GracefulShutdownRequest.send(to: $0) }
                Self.stopWhenDrained(loop, deadline: MonotonicClock.coarseMilliseconds() + grace)
            }
            // A full queue must not drop the shutdown, or wait() would never return.
            while !loop.execute(task) { ThisProcess.sleep(milliseconds: 1) }
        }
    }

    private static func stopWhenDrained(_ loop: EventLoop, deadline: UInt64) {
        if loop.connectionCount == 0 || MonotonicClock.coarseMilliseconds() >= deadline {
            loop.forEachConnection { $0.closeNow() }
            loop.stop()
            return
        }
        loop.after(milliseconds: 50) { stopWhenDrained(loop, deadline: deadline) }
    }

    /// Blocks until every loop has stopped.
    public func wait() {
        for thread in threads { thread.join() }
        threads.removeAll()
        orphanSweeper?.stop()
        context.searchIndexer?.stop()
        context.webhookExpander?.stop()
        context.webhookRuntime?.stop()
        context.attachmentStore?.stop()
        context.chat?.stop()
        logger.info("stopped")
    }
}
