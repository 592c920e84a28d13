import SwitchboardSystem

/// One WebSocket connection for a driver's own thread (the soak's churn
/// clients, chaos's slow consumer): LoadKit's `WebSocketClient` on a
/// `ClientLoop` of its own that runs only while a call waits, so between
/// calls nothing is read, as a client that stops reading would behave.
public final class SteppedWebSocket: WebSocketClientDelegate {
    private let loop: ClientLoop
    private var client: WebSocketClient!
    private var opened = false
    /// Why the connection ended, once it has.
    public private(set) var closeReason: CloseReason?
    /// Text messages received and not yet taken by `receive(until:)`.
    private var inbox: [String] = []

    /// Connects to 127.0.0.1:`port`, upgrades (within `timeoutSeconds`) and
    /// sends `hello` with `token`. `receiveBufferBytes` caps SO_RCVBUF.
    public init(
        port: UInt16, token: String, path: String = "/v1/ws", receiveBufferBytes: Int32? = nil,
        timeoutSeconds: Double = 5
    ) throws(DriveError) {
        do {
            loop = try ClientLoop(port: port, path: path)
        } catch {
            throw DriveError("client loop: \(error)")
        }
        client = WebSocketClient(delegate: self)
        do {
            try loop.connect(
                client, to: GatewayEndpoint(port: port, path: path), receiveBufferBytes: receiveBufferBytes)
        } catch {
            throw DriveError("connect to \(port): \(error)")
        }
        step(timeoutSeconds: timeoutSeconds) { opened || closeReason != nil }
        guard opened, closeReason == nil else {
            client.abort()
            throw DriveError(
                "WebSocket to \(port): \(closeReason.map { "\($0)" } ?? "no upgrade within \(timeoutSeconds) s")")
        }
        client.sendText(ClientFrames.hello(token: token))
    }

    deinit { client.abort() }

    public func opened(_ client: WebSocketClient) { opened = true }

    public func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient) {
        inbox.append(String(decoding: text, as: UTF8.self))
    }

    public func closed(_ client: WebSocketClient, reason: CloseReason) { closeReason = reason }

    /// Sends one text frame (nothing once the connection has ended).
    public func send(_ text: String) { client.sendText(text) }

    /// The first message, received from now on or already waiting, for which
    /// `matches` holds; earlier ones are dropped. Throws when the connection
    /// ends first or `timeoutSeconds` pass.
    public func receive(
        timeoutSeconds: Double = 5, until matches: (String) -> Bool
    ) throws(DriveError) -> String {
        var found: String?
        step(timeoutSeconds: timeoutSeconds) {
            while found == nil, !inbox.isEmpty {
                let message = inbox.removeFirst()
                if matches(message) { found = message }
            }
            return found != nil || closeReason != nil
        }
        guard let found else {
            throw DriveError(closeReason.map { "closed: \($0)" } ?? "no such message within \(timeoutSeconds) s")
        }
        return found
    }

    /// Reads and drops whatever has arrived, without waiting.
    public func drain() {
        step(timeoutSeconds: 0) { true }
        inbox.removeAll()
    }

    /// True once the gateway has ended the connection (close frame or not),
    /// reading what is left to its end; false after `timeoutSeconds`.
    /// The connection is released either way.
    public func closedByPeer(timeoutSeconds: Double = 5) -> Bool {
        step(timeoutSeconds: timeoutSeconds) {
            inbox.removeAll()
            return closeReason != nil
        }
        let byPeer = closeReason != nil && closeReason != .local
        client.abort()
        return byPeer
    }

    /// Drops the connection without a close frame.
    public func abort() { client.abort() }

    /// Runs the loop until `done` or the timeout (at least one pass).
    private func step(timeoutSeconds: Double, until done: () -> Bool) {
        let deadline = DriveClock.monotonicSeconds() + timeoutSeconds
        loop.run { !done() && DriveClock.monotonicSeconds() < deadline }
    }
}
