import SwitchboardChatCore
import SwitchboardWebSocket

/// A WebSocket connection as its application sees it: `WebSocketConnectionHandler`,
/// whatever connection it runs over. The chat core keeps it as its `ChatPeer`.
protocol WebSocketPeer: ChatPeer {
    /// Sends one data message.
    func send(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer)
}

/// What runs on top of a WebSocket connection: the echo test endpoint or the chat protocol.
protocol WebSocketApplication: AnyObject {
    /// The handshake is done; `socket` is the connection this application runs on.
    func opened(_ socket: any WebSocketPeer)
    /// A complete, validated data message. `payload` is valid only during the call.
    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: any WebSocketPeer)
    /// Called at every heartbeat tick (and first at `firstTickMilliseconds`): the
    /// application's chance to enforce deadlines; it closes the socket when it must.
    func tick(_ socket: any WebSocketPeer, nowMilliseconds: UInt64)
    /// When the first tick should come, if sooner than a heartbeat interval (auth timeout).
    var firstTickMilliseconds: UInt64? { get }
    /// The connection is gone.
    func closed(_ socket: any WebSocketPeer)
}

extension WebSocketApplication {
    func opened(_ socket: any WebSocketPeer) {}
    func tick(_ socket: any WebSocketPeer, nowMilliseconds: UInt64) {}
    var firstTickMilliseconds: UInt64? { nil }
}

/// `/v1/echo` (docs/protocol.md, "Echo test endpoint"): every data message comes back unchanged.
final class EchoApplication: WebSocketApplication {
    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: any WebSocketPeer) {
        socket.send(opcode, payload)
    }

    func closed(_ socket: any WebSocketPeer) {}
}
