import Logging
import SwitchboardChatCore
import SwitchboardIO
import SwitchboardMetrics
import SwitchboardWebSocket

/// Runs one WebSocket connection: framing through `WebSocketSession`,
/// heartbeats, backpressure, and the closing handshake.
final class WebSocketConnectionHandler<IO: ConnectionIO>: ConnectionHandler, GracefulShutdown, WebSocketPeer {
    let session: WebSocketSession
    let application: WebSocketApplication
    private let heartbeatMilliseconds: UInt64
    private let metrics: GatewayMetrics
    private let logger: Logger
    private unowned(unsafe) var connection: IO?
    /// Heartbeat intervals that passed with nothing received from the peer.
    private var silentIntervals = 0
    private var receivedSinceTick = false
    private var heartbeatPhaseSpread = false

    init(session: WebSocketSession, application: WebSocketApplication, context: ServerContext) {
        self.session = session
        self.application = application
        heartbeatMilliseconds = context.heartbeatMilliseconds
        metrics = context.metrics
        logger = context.logger
    }

    func start(on connection: IO) {
        self.connection = connection
        connection.setTimer(afterMilliseconds: min(heartbeatMilliseconds, application.firstTickMilliseconds ?? .max))
        application.opened(self)
    }

    /// Sends a frame encoded once for every subscriber: the prebuilt
    /// uncompressed frame as is, or compressed when this connection negotiated
    /// deflate and the message is worth compressing (once per loop and window
    /// without context takeover, for this connection alone with it).
    func send(_ shared: SharedFrame) {
        guard let connection, connection.isOpen, !session.isClosing else { return }
        if session.compresses(.text, payloadCount: shared.payload.count) {
            connection.write(session.encodeMessage(opcode: .text, payload: shared.payload, sharedBy: shared))
        } else {
            connection.write(shared.frame)
        }
    }

    /// Sends what `body` writes with as few system calls as the loop's cork allows.
    func batchWrites(_ body: () -> Void) {
        if let connection { connection.batchWrites(body) } else { body() }
    }

    /// Sends one text message built for this connection only (replies, errors).
    func sendText(_ payload: [UInt8]) {
        payload.withUnsafeBytes { send(.text, $0) }
    }

    /// Sends one data message; a peer too slow to take it is closed with 1008 (`backlogExceeded`).
    func send(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer) {
        guard let connection, connection.isOpen, !session.isClosing else { return }
        if connection.isCorked && !session.compresses(opcode, payloadCount: payload.count) {
            // Both writes land in the same send, so the frame needs no buffer of its own.
            withUnsafeTemporaryAllocation(byteCount: FrameEncoder.maxHeaderLength, alignment: 8) { header in
                let length = FrameEncoder.writeHeader(opcode: opcode, payloadLength: payload.count, into: header)
                connection.write(UnsafeRawBufferPointer(rebasing: header[0..<length]))
                connection.write(payload)
            }
        } else {
            connection.write(session.encodeMessage(opcode: opcode, payload: payload))
        }
    }

    /// The peer is not reading: cut it off (docs/protocol.md close 1008); it catches up after reconnecting.
    func backlogExceeded(on connection: IO) {
        guard !session.isClosing else { return }
        metrics.slowConsumerCloses.increment()
        close(code: 1008, reason: "outgoing buffer limit exceeded")
    }

    /// Starts the closing handshake (RFC 6455 5.5.1) and closes once sent.
    func close(code: UInt16, reason: String) {
        guard let connection, connection.isOpen else { return }
        if !session.isClosing {
            metrics.closes(code: code).increment()
            // Debug only (off in production): names the code and reason, never a payload.
            logger.debug("closing websocket", metadata: ["code": "\(code)", "reason": "\(reason)"])
        }
        if !session.isClosing { connection.write(session.encodeClose(code: code, reason: reason)) }
        connection.closeAfterFlush()
    }

    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: IO) {
        receivedSinceTick = true
        let outcome = session.receive(
            bytes,
            onMessage: { opcode, payload in application.received(opcode, payload, from: self) },
            send: { frame in _ = connection.write(frame) })
        if outcome == .closing { connection.closeAfterFlush() }
    }

    /// Every heartbeat interval: ping; a peer silent for two intervals is dead.
    func timerFired(on connection: IO) {
        application.tick(self, nowMilliseconds: connection.loop.now)
        guard connection.isOpen, !session.isClosing else { return }
        if receivedSinceTick {
            silentIntervals = 0
        } else {
            silentIntervals += 1
        }
        receivedSinceTick = false
        if silentIntervals >= 2 {
            // Nothing arrived for two intervals: a close frame would only wait in
            // the buffers of a peer that is gone (and 1001 means a shutdown), so
            // the socket is closed at once; the client sees 1006 and reconnects.
            metrics.closes(code: 1006).increment()
            logger.debug("dropping a silent websocket", metadata: ["reason": "heartbeat timeout"])
            connection.closeNow()
            return
        }
        connection.write(session.encodePing([]))
        // The first ping after the opening tick comes up to a quarter of an
        // interval early, by an amount fixed per socket, so that connections
        // opened together are not pinged in the same tick forever
        // (docs/architecture.md, "Event loops"). Later pings keep the interval.
        var delay = heartbeatMilliseconds
        if !heartbeatPhaseSpread {
            heartbeatPhaseSpread = true
            delay -= (UInt64(UInt32(bitPattern: connection.fd)) &* 2_654_435_761) % (heartbeatMilliseconds / 4 + 1)
        }
        connection.setTimer(afterMilliseconds: delay)
    }

    func peerClosed(on connection: IO) {
        connection.closeAfterFlush()
    }

    func closed(_ connection: IO) {
        application.closed(self)
        self.connection = nil
    }

    func beginShutdown(on connection: IO) {
        close(code: 1001, reason: "gateway shutting down")
    }
}
