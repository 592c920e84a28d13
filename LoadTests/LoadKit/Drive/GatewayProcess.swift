import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// The gateway's configuration for load: one event loop by default, the
/// harness's rate allowed (no per-connection limit to speak of), no
/// compression, warnings only in the log.
public struct GatewayConfig: Sendable {
    public var port: UInt16
    public var jwtSecret: String
    public var threads = 1
    public var shutdownGraceSeconds = 2
    /// More keys of [server] (`admission...`, say).
    public var serverExtra = ""
    /// More TOML after the rest (a [cluster] table, say).
    public var extra = ""

    public init(port: UInt16, jwtSecret: String) {
        self.port = port
        self.jwtSecret = jwtSecret
    }

    /// The file `switchboard serve --config` reads.
    public var toml: String {
        """

        [server]
        listen = ["127.0.0.1:\(port)"]
        threads = \(threads)
        shutdown_grace_s = \(shutdownGraceSeconds)
        \(serverExtra)
        [websocket.deflate]
        enabled = false
        [chat]
        rate_per_second = 100000
        rate_burst = 100000
        [auth]
        jwt_secret = "\(jwtSecret)"
        [log]
        level = "warning"
        \(extra)

        """
    }
}

/// `switchboard serve` started by a driver: its configuration written to
/// `configPath`, its output appended to `logPath`, pinned to `core` with
/// taskset (nil: not pinned), with the driver's environment minus every
/// SWITCHBOARD_* variable (the file says it all). Ready once its port accepts.
public final class GatewayProcess {
    public let config: GatewayConfig
    public let binDirectory: String
    public let databaseURL: String
    public let configPath: String
    public let logPath: String
    public let core: Int?
    public private(set) var process: SpawnedProcess

    public var port: UInt16 { config.port }
    public var pid: pid_t { process.pid }
    public var endpoint: GatewayEndpoint { GatewayEndpoint(port: config.port, path: "/v1/ws") }
    /// `ws://127.0.0.1:PORT/v1/ws`, as `loadtest --url` takes it.
    public var url: String { endpoint.url }

    public init(
        binDirectory: String, databaseURL: String, config: GatewayConfig, configPath: String, logPath: String,
        core: Int? = 0
    ) throws(DriveError) {
        self.binDirectory = binDirectory
        self.databaseURL = databaseURL
        self.config = config
        self.configPath = configPath
        self.logPath = logPath
        self.core = core
        do {
            try TextFile.write(configPath, config.toml)
        } catch {
            throw DriveError(error.description)
        }
        process = try Self.start(
            command: Self.command(
                binDirectory: binDirectory, configPath: configPath, databaseURL: databaseURL, core: core),
            logPath: logPath, port: config.port)
    }

    /// The argument vector: `[taskset -c CORE] BIN/switchboard serve --config FILE --database-url URL`.
    public static func command(binDirectory: String, configPath: String, databaseURL: String, core: Int?) -> [String] {
        let pin = core.map { ["taskset", "-c", String($0)] } ?? []
        return pin + [
            TextFile.join(binDirectory, "switchboard"), "serve", "--config", configPath, "--database-url", databaseURL,
        ]
    }

    /// `variables` without SWITCHBOARD_*: none of the driver's settings leak into the gateway.
    public static func environment(from variables: [String: String]) -> [String: String] {
        variables.filter { !$0.key.hasPrefix("SWITCHBOARD_") }
    }

    private static func start(command: [String], logPath: String, port: UInt16) throws(DriveError) -> SpawnedProcess {
        let process = try SpawnedProcess(
            command, environment: environment(from: ThisProcess.environment), output: .file(logPath))
        guard LocalPorts.waitUntilAccepting(port: port, seconds: 60, process: process) else {
            process.stop(timeoutSeconds: 5)
            throw DriveError(
                "the gateway did not listen on \(port) (exit \(process.exit.map(\.description) ?? "none"); log \(logPath))"
            )
        }
        return process
    }

    /// Starts the gateway again on the same port with the same configuration
    /// (after `stop`, a SIGKILL or a SIGTERM it has exited from).
    public func restart() throws(DriveError) {
        if process.isRunning { process.stop() }
        process = try Self.start(
            command: Self.command(
                binDirectory: binDirectory, configPath: configPath, databaseURL: databaseURL, core: core),
            logPath: logPath, port: config.port)
    }

    /// SIGTERM, and the exit (SIGKILL after `timeoutSeconds`).
    @discardableResult
    public func stop(timeoutSeconds: Double = 20) -> ProcessExit {
        process.stop(timeoutSeconds: timeoutSeconds)
    }

    /// The /metrics exposition.
    public func metrics(timeoutSeconds: Double = 5) throws(DriveError) -> String {
        let response = try HTTPClient.request("GET", "/metrics", port: port, timeoutSeconds: timeoutSeconds)
        guard response.status == 200 else { throw DriveError("/metrics answered \(response.status)") }
        return response.text
    }

    /// One figure of /metrics (`switchboard_messages_stored_total`, or with
    /// labels written out); nil when the gateway does not answer or lacks it.
    public func metric(_ name: String) -> Double? {
        HTTPClient.text("/metrics", port: port, timeoutSeconds: 2).flatMap { PrometheusText.value(name, in: $0) }
    }

    public var residentKiB: Int? { ProcessFacts.residentKiB(pid) }
    public var openDescriptors: Int? { ProcessFacts.openDescriptors(pid) }
}
