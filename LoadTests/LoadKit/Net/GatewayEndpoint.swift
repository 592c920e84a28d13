/// One gateway node the harness connects to: an IPv4 address (never a name:
/// the harness must not look names up mid-run), a port and the WebSocket path.
public struct GatewayEndpoint: Sendable, Hashable {
    public var host: String
    public var port: UInt16
    public var path: String

    public init(host: String = "127.0.0.1", port: UInt16, path: String) {
        self.host = host
        self.port = port
        self.path = path
    }

    /// As the reports print it: `ws://127.0.0.1:8080/v1/ws`.
    public var url: String { "ws://\(host):\(port)\(path)" }
}
