import SwitchboardWebSocket

/// What runs on top of a WebSocket connection: the echo test endpoint or the chat protocol.
protocol WebSocketApplication: AnyObject {
    /// The handshake is done; `socket` is the connection this application runs on.
    func opened(_ socket: WebSocketConnectionHandler)
    /// A complete, validated data message. `payload` is valid only during the call.
    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: WebSocketConnectionHandler)
    /// Called at every heartbeat tick (and first at `firstTickMilliseconds`): the
    /// application's chance to enforce deadlines; it closes the socket when it must.
    func tick(_ socket: WebSocketConnectionHandler, nowMilliseconds: UInt64)
    /// When the first tick should come, if sooner than a heartbeat interval (auth timeout).
    var firstTickMilliseconds: UInt64? { get }
    /// The connection is gone.
    func closed(_ socket: WebSocketConnectionHandler)
}

extension WebSocketApplication {
    func opened(_ socket: WebSocketConnectionHandler) {}
    func tick(_ socket: WebSocketConnectionHandler, nowMilliseconds: UInt64) {}
    var firstTickMilliseconds: UInt64? { nil }
}

/// `/v1/echo` (docs/protocol.md, "Echo test endpoint"): every data message comes back unchanged.
final class EchoApplication: WebSocketApplication {
    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: WebSocketConnectionHandler)
    {
        socket.send(opcode, payload)
    }

    func closed(_ socket: WebSocketConnectionHandler) {}
}
