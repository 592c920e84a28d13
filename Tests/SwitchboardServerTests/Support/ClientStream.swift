/// One client connection as a test drives it: a real socket (`RawClient`,
/// against a live gateway) or an in-memory connection (`EmbeddedClient`,
/// against the handlers in-process). The test reads and writes bytes the
/// same way either way, so an assertion means the same over both.
protocol ClientStream: AnyObject {
    func send(_ bytes: [UInt8])
    /// Reads until `count` bytes arrived, the peer closed, or the timeout passed.
    func read(count: Int) -> [UInt8]
    /// Reads an HTTP response head (through the blank line).
    func readHead() -> String
    /// Half-closes: the gateway sees EOF and may still write.
    func shutdownWrite()
}

/// Where a test's clients connect: a gateway on a socket or one in-process.
protocol TestGateway {
    func connect() throws -> any ClientStream
    func stop()
}

extension ClientStream {
    func send(_ text: String) { send(Array(text.utf8)) }

    /// Reads everything until the peer closes (or the timeout).
    func readToEnd() -> [UInt8] { read(count: Int.max) }

    // MARK: WebSocket, per RFC 6455, independently of the server's codec

    func upgrade(path: String = "/v1/echo", extraHeaders: String = "") -> String {
        send(
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extraHeaders)\r\n")
        return readHead()
    }

    /// Reads one unmasked server frame: (opcode, payload), or nil on close/timeout.
    func readFrame() -> (opcode: UInt8, payload: [UInt8])? {
        let head = read(count: 2)
        guard head.count == 2 else { return nil }
        var length = Int(head[1] & 0x7f)
        if length == 126 {
            let ext = read(count: 2)
            length = Int(ext[0]) << 8 | Int(ext[1])
        } else if length == 127 {
            let ext = read(count: 8)
            length = ext.reduce(0) { $0 << 8 | Int($1) }
        }
        let payload = read(count: length)
        guard payload.count == length else { return nil }
        return (head[0] & 0x0f, payload)
    }
}
