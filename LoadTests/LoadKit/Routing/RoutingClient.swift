import SwitchboardSystem

/// What the routing scenario's consoles and widgets share: one connection
/// to their node, signed in with their token, that the run closes and any
/// other close of which fails the run. Subclasses read the frames.
class RoutingClient: WebSocketClientDelegate {
    /// How the run names it in its notes ("operator lt-r-o3", "visitor 12").
    let name: String
    let token: String
    let node: Int
    unowned(unsafe) let run: RoutingRun
    var client: WebSocketClient?

    init(name: String, token: String, node: Int, run: RoutingRun) {
        self.name = name
        self.token = token
        self.node = node
        self.run = run
    }

    func connect(loop: ClientLoop) throws(SystemError) {
        let client = WebSocketClient(delegate: self)
        self.client = client
        try loop.connect(client, to: run.nodes[node])
    }

    func close() {
        let client = self.client
        self.client = nil
        client?.close()
    }

    /// The connection is gone (the run's own close included).
    func disconnected() {}

    // MARK: WebSocketClientDelegate

    func opened(_ client: WebSocketClient) {
        client.sendText(ClientFrames.hello(token: token))
    }

    func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient) {}

    func closed(_ client: WebSocketClient, reason: CloseReason) {
        guard self.client === client else { return }
        self.client = nil
        disconnected()
        guard reason != .local else { return }
        run.failed("\(name): connection closed: \(reason)")
    }
}
