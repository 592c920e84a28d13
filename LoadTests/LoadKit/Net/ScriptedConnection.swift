import SwitchboardJSON
import SwitchboardSystem

/// Connections driven one step at a time, for the small drivers that play a
/// scripted conversation (`loadtest seed-sessions`, `loadtest transcript`):
/// send a frame, then wait for the next message, with a deadline.
public final class ScriptedConnections {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// One connection's received messages, oldest first, until it closes.
    public final class Connection: WebSocketClientDelegate {
        let client: WebSocketClient
        var inbox: [String] = []
        var isOpen = false
        var closed: CloseReason?

        init() {
            client = WebSocketClient(delegate: nil)
            client.delegate = self
        }

        public func opened(_ client: WebSocketClient) { isOpen = true }

        public func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient) {
            inbox.append(String(decoding: text, as: UTF8.self))
        }

        public func closed(_ client: WebSocketClient, reason: CloseReason) { closed = reason }

        public func send(_ text: String) { client.sendText(text) }

        public func close() { client.close() }

        /// Drops the connection without a close frame.
        public func abort() { client.abort() }
    }

    private let loop: ClientLoop
    private let endpoint: GatewayEndpoint
    private let timeoutNanoseconds: UInt64

    /// `url`: ws://HOST:PORT/PATH; `timeout`: how long one step may wait, in seconds.
    public init(url: String, timeout: Double) throws(Failure) {
        do {
            endpoint = try LoadOptions.parseURL(url)
            loop = try ClientLoop(host: endpoint.host, port: endpoint.port, path: endpoint.path)
        } catch {
            throw Failure(description: "\(error)")
        }
        timeoutNanoseconds = UInt64(timeout * 1e9)
    }

    /// A new connection, once its upgrade succeeded. `receiveBufferBytes` caps its
    /// socket's receive buffer (a slow consumer: see `drain` and `closedByPeer`).
    public func open(receiveBufferBytes: Int32? = nil) throws(Failure) -> Connection {
        let connection = Connection()
        do {
            try loop.connect(connection.client, to: endpoint, receiveBufferBytes: receiveBufferBytes)
        } catch {
            throw Failure(description: "\(error)")
        }
        try wait(connection, for: "the upgrade") { connection.isOpen }
        return connection
    }

    /// A new connection that said hello with `token` (the frame `hello` makes is passed to
    /// `sent` first) and whose first answer, passed to `received`, was `welcome`.
    public func greeted(
        token: String, sent: (String) -> Void = { _ in }, received: (String) -> Void = { _ in }
    ) throws(Failure) -> Connection {
        let connection = try open()
        let hello = PythonFormat.json(["type": "hello", "token": .string(token)], compact: true)
        sent(hello)
        connection.send(hello)
        let welcome = try next(connection)
        received(welcome)
        guard (try? JSONParser.parse(welcome, limits: .reports))?.string("type") == "welcome" else {
            throw Failure(description: "the hello was answered with \(welcome), not welcome")
        }
        return connection
    }

    /// The connection's next message.
    public func next(_ connection: Connection) throws(Failure) -> String {
        try wait(connection, for: "a message") { !connection.inbox.isEmpty }
        return connection.inbox.removeFirst()
    }

    /// Reads what has arrived, without waiting, and drops `connection`'s messages.
    /// Between calls nothing is read: a connection nobody waits on stops reading.
    public func drain(_ connection: Connection) {
        loop.run { false }
        connection.inbox.removeAll()
    }

    /// Whether the server ends `connection` (with a close frame or without) within
    /// `seconds`, reading what is left on it meanwhile.
    public func closedByPeer(_ connection: Connection, within seconds: Double) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        loop.run {
            connection.inbox.removeAll()
            return connection.closed == nil && MonotonicClock.nanoseconds() < deadline
        }
        return connection.closed != nil && connection.closed != .local
    }

    private func wait(_ connection: Connection, for what: String, until done: () -> Bool) throws(Failure) {
        let deadline = MonotonicClock.nanoseconds() + timeoutNanoseconds
        var timedOut = false
        loop.run {
            if done() || connection.closed != nil { return false }
            timedOut = MonotonicClock.nanoseconds() >= deadline
            return !timedOut
        }
        if done() { return }
        if let reason = connection.closed {
            throw Failure(description: "the connection closed waiting for \(what): \(reason)")
        }
        if timedOut { throw Failure(description: "no \(what) within \(timeoutNanoseconds / 1_000_000_000) s") }
    }
}

extension JSONValue {
    /// A JSON member as text when it is a string.
    func string(_ key: String) -> String? { self[key]?.stringValue }
}
