/// A client connection as the chat core sees it: somewhere to write frames.
/// `WebSocketConnectionHandler` in production, a recorder in tests.
package protocol ChatPeer: AnyObject {
    /// A frame encoded once and shared by every connection it goes to.
    func send(_ frame: SharedFrame)
    /// A reply built for this connection alone.
    func sendText(_ payload: [UInt8])
    /// Sends what `body` writes with as few system calls as the loop allows.
    func batchWrites(_ body: () -> Void)
    /// Ends the connection with a WebSocket close code.
    func close(code: UInt16, reason: String)
}
