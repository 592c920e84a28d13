import Foundation
import SwitchboardTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The built `switchboard` binary serving on a free loopback port, in a process
/// of its own: what it costs (RSS, descriptors) is measured for it alone, not
/// for the test runner and every suite running beside it.
final class GatewayProcess {
    let port: UInt16
    let process: ChildProcess
    private let folder: URL

    /// `toml` is added to the configuration (tables other than [server]);
    /// `server` are more keys of [server].
    init(databaseURL: String, server: String = "", toml: String = "") throws {
        let binary = try ChildProcess.builtExecutable("switchboard")
        port = try ChildProcess.freePort()
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-gateway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("gateway.toml").path
        try """
        [server]
        listen = ["127.0.0.1:\(port)"]
        threads = 1
        shutdown_grace_s = 1
        \(server)
        [auth]
        jwt_secret = "\(String(repeating: "s", count: 32))"
        [log]
        level = "warning"
        \(toml)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        process = try ChildProcess(
            [binary, "serve", "--config", config, "--database-url", databaseURL],
            logPath: folder.appendingPathComponent("gateway.log").path)
        guard ChildProcess.waitForPort(port, seconds: 30) else {
            process.stop(signal: SIGKILL)
            throw TestFailure("the gateway did not listen on \(port): \(process.log)")
        }
    }

    /// SIGTERM and the exit status.
    @discardableResult
    func stop() -> Int32? {
        defer { try? FileManager.default.removeItem(at: folder) }
        return process.stop(signal: SIGTERM)
    }
}
