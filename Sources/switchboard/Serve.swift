import ArgumentParser
import Logging
import SwitchboardServer
import SwitchboardStore
import SwitchboardSystem

/// `switchboard serve`: the command-line contract of docs/protocol.md ("Command line").
/// Precedence: built-in defaults, then the file, then SWITCHBOARD_* variables, then flags.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the gateway.")

    @Option(help: "Configuration file (TOML). Default: config/switchboard.toml if present.")
    var config: String?

    @Option(help: "Plain listener HOST:PORT (repeatable; replaces server.listen).")
    var listen: [String] = []

    @Option(name: .customLong("tls-listen"), help: "TLS listener HOST:PORT (repeatable; replaces tls.listen).")
    var tlsListen: [String] = []

    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain for TLS listeners.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "PEM private key for TLS listeners.")
    var tlsKey: String?

    @Option(name: .customLong("database-url"), help: "PostgreSQL URL (or SWITCHBOARD_DATABASE_URL).")
    var databaseURL: String?

    @Option(name: .customLong("jwt-secret"), help: "HS256 secret for client tokens (or SWITCHBOARD_JWT_SECRET).")
    var jwtSecret: String?

    @Option(help: "Event-loop threads (0 = one per core).")
    var threads: Int?

    @Option(name: .customLong("cluster-bus"), help: "How nodes hear of each other: postgres (default), nats, none.")
    var clusterBus: String?

    @Option(name: .customLong("nats-url"), help: "NATS server for --cluster-bus nats (nats://127.0.0.1:4222).")
    var natsURL: String?

    @Option(name: .customLong("node-id"), help: "This node's name in /readyz and /metrics (default: host-pid).")
    var nodeID: String?

    @Flag(name: .customLong("echo-endpoint"), help: "Serve the /v1/echo test endpoint.")
    var echoEndpoint = false

    @Flag(name: .customLong("dev-tokens"), help: "Sign tokens for anyone at POST /dev/token (development only).")
    var devTokens = false

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try ConfigurationLoader.load(
                file: config, environment: ThisProcess.environment,
                overrides: ConfigurationOverrides(
                    listen: listen, tlsListen: tlsListen, tlsCertificate: tlsCert, tlsPrivateKey: tlsKey,
                    databaseURL: databaseURL, jwtSecret: jwtSecret, threads: threads,
                    echoEndpoint: echoEndpoint ? true : nil, devTokens: devTokens ? true : nil,
                    clusterBus: clusterBus, natsURL: natsURL, nodeID: nodeID))
        } catch {
            throw ValidationError("\(error)")
        }
        let logger = LogSetup.bootstrap(level: configuration.logLevel)
        if configuration.devTokens {
            logger.warning(
                "auth.dev_tokens is on: POST /dev/token signs a token for anyone who asks; never use this in production"
            )
        }
        // libpq waits for an unreachable host as long as the kernel does; bound every connection
        // attempt (writer, readers, schema check) unless the environment or the URL says otherwise.
        ThisProcess.setEnvironmentDefault("PGCONNECT_TIMEOUT", "10")
        // Never answer requests against a schema that is behind or diverged.
        if configuration.databaseURL.isEmpty {
            logger.warning(
                "no database configured (--database-url or SWITCHBOARD_DATABASE_URL): the chat endpoint /v1/ws is off")
        } else {
            do {
                let version = try SchemaCheck.require(url: configuration.databaseURL)
                logger.info("database schema at version \(version)")
            } catch {
                logger.critical("cannot start: \(error)")
                throw ExitCode(1)
            }
        }
        TerminationSignals.block()
        let server: Server
        do {
            server = try Server(configuration: configuration, logger: logger)
            try server.start()
        } catch {
            logger.critical("cannot start: \(error)")
            throw ExitCode(1)
        }
        let signal = TerminationSignals.wait()
        logger.info("\(signal) received: draining connections")
        server.shutdown()
        server.wait()
    }
}
