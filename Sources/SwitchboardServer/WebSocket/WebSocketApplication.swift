import SwitchboardWebSocket

/// What runs on top of a WebSocket connection (echo now, the chat protocol later).
protocol WebSocketApplication: AnyObject {
    /// A complete, validated data message. `payload` is valid only during the call.
    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: WebSocketConnectionHandler)
    /// The connection is gone.
    func closed(_ socket: WebSocketConnectionHandler)
}

/// `/v1/echo` (PROTOCOL.md, "Test endpoint"): every data message comes back unchanged.
final class EchoApplication: WebSocketApplication {
    func received(_ opcode: WebSocketOpcode, _ payload: UnsafeRawBufferPointer, from socket: WebSocketConnectionHandler)
    {
        socket.send(opcode, payload)
    }

    func closed(_ socket: WebSocketConnectionHandler) {}
}
