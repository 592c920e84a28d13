import SwitchboardDeflate

/// A successful opening handshake: the complete 101 response to write, and
/// what was negotiated.
public struct WebSocketHandshakeAccept: Sendable {
    /// "HTTP/1.1 101 Switching Protocols\r\n...\r\n\r\n", ready to write.
    public let responseHead: [UInt8]
    /// The permessage-deflate parameters, nil when not negotiated.
    public let deflate: DeflateParameters?
    /// The selected subprotocol, nil when none.
    public let subprotocol: String?

    public init(responseHead: [UInt8], deflate: DeflateParameters?, subprotocol: String?) {
        self.responseHead = responseHead
        self.deflate = deflate
        self.subprotocol = subprotocol
    }
}

/// A refused opening handshake: the HTTP status to answer with, a message for
/// the body or log, and headers the response must carry.
public struct WebSocketHandshakeFailure: Error, Sendable {
    public let status: Int
    public let message: String
    public let extraHeaders: [(String, String)]

    public init(status: Int, message: String, extraHeaders: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.extraHeaders = extraHeaders
    }
}
