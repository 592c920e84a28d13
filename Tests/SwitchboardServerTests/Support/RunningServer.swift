import Logging
import SwitchboardServer
import SwitchboardSystem

/// Starts an in-process gateway on an ephemeral loopback port for one test.
final class RunningServer {
    let server: Server
    let port: UInt16
    let tlsPort: UInt16?

    init(_ configure: (inout Configuration) -> Void = { _ in }) throws {
        var configuration = Configuration()
        configuration.listen = [SocketAddress(host: "127.0.0.1", port: 0, family: .inet)]
        configuration.threads = 2
        configuration.echoEndpoint = true
        configuration.shutdownGraceSeconds = 1
        configure(&configuration)
        try configuration.validate()
        var logger = Logger(label: "test-server")
        logger.logLevel = .warning
        server = try Server(configuration: configuration, logger: logger)
        try server.start()
        port = server.boundAddresses.first { !$0.tls }?.address.port ?? 0
        tlsPort = server.boundAddresses.first { $0.tls }?.address.port
    }

    func stop() {
        server.shutdown()
        server.wait()
    }
}

extension RunningServer: TestGateway {
    func connect() throws -> any ClientStream { try RawClient(port: port) }
}
