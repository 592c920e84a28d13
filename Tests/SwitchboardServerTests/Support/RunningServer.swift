import Logging
import SwitchboardSystem

@testable import SwitchboardServer

/// Starts an in-process gateway on an ephemeral loopback port for one test.
final class RunningServer {
    let server: Server
    let port: UInt16
    let tlsPort: UInt16?

    init(attachments: (any AttachmentBackend)? = nil, _ configure: (inout Configuration) -> Void = { _ in }) throws {
        let configuration = try Configuration.forTests {
            $0.listen = [SocketAddress(host: "127.0.0.1", port: 0, family: .inet)]
            configure(&$0)
        }
        server = try Server(
            configuration: configuration, logger: .forTests("test-server"), attachmentBackend: attachments)
        try server.start()
        port = server.boundAddresses.first { !$0.tls }?.address.port ?? 0
        tlsPort = server.boundAddresses.first { $0.tls }?.address.port
    }

    func stop() {
        server.shutdown()
        server.wait()
    }
}

extension Configuration {
    /// A test gateway's: two loops, the echo endpoint, a 1 s shutdown grace
    /// period, then `configure`'s changes; validated.
    static func forTests(_ configure: (inout Configuration) -> Void) throws -> Configuration {
        var configuration = Configuration()
        configuration.threads = 2
        configuration.echoEndpoint = true
        configuration.shutdownGraceSeconds = 1
        configure(&configuration)
        try configuration.validate()
        return configuration
    }
}

extension Logger {
    /// Warnings and errors only: a passing test prints nothing.
    static func forTests(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .warning
        return logger
    }
}

extension RunningServer: TestGateway {
    func connect() throws -> any ClientStream { try RawClient(port: port) }
}
