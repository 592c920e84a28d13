import SwitchboardChat
import SwitchboardChatCore
import SwitchboardIO
import SwitchboardWebSocket

/// One client of `/v1/ws` (docs/protocol.md): the socket's side of the
/// loop's `ChatCore`. It hands every text message over as the decoder left
/// it, and the loop's clock ticks; the core decides everything else (rate
/// limits, `hello`, the deadlines, the commands). Lives on its loop's thread.
final class ChatConnection<Loop: ConnectionLoop>: WebSocketApplication {
    private let core: ChatCore
    private let limits: ChatLimits
    private unowned let loop: Loop
    /// The core's id for this connection, set when the socket opens.
    private var id: UInt64 = 0
    let firstTickMilliseconds: UInt64?

    init(service: ChatService, loop: Loop) {
        self.loop = loop
        core = service.cores.core(forLoop: loop.index)
        limits = service.settings.limits
        firstTickMilliseconds = service.settings.authTimeoutMilliseconds
    }

    func opened(_ socket: any WebSocketPeer) {
        id = core.open(socket, nowMilliseconds: loop.now)
    }

    func closed(_ socket: any WebSocketPeer) {
        core.close(id)
    }

    func tick(_ socket: any WebSocketPeer, nowMilliseconds: UInt64) {
        core.tick(id, nowMilliseconds: nowMilliseconds)
    }

    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: any WebSocketPeer) {
        guard opcode == .text else { return core.receiveBinary(from: id) }
        core.receive(
            ClientFrameDecoder.decode(payload, limits: limits), from: id, nowMilliseconds: loop.now,
            receivedAt: loop.wokeAt)
    }
}
