import Foundation
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// A real nats-server (Debian's `nats-server` package) run as a child
/// process on 127.0.0.1 and a free port, killed with SIGKILL to simulate a
/// crash and started again on the same port.
public final class NATSServerProcess: @unchecked Sendable {
    /// The binary: $NATS_SERVER_BINARY, else `nats-server` in PATH or in the
    /// sbin directories Debian installs it to (not always in a user's PATH).
    public static let executable: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["NATS_SERVER_BINARY"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let directories =
            (environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"]
        return directories.map { $0 + "/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    public static let missingMessage =
        "nats-server is not installed (apt-get install nats-server, or set NATS_SERVER_BINARY): integration tests skipped"

    public let port: UInt16
    public let logPath: String
    private var process: ChildProcess?

    public var url: String { "nats://127.0.0.1:\(port)" }

    /// Starts a server on a port that was free a moment ago.
    public init() throws {
        port = try ChildProcess.freePort()
        logPath =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("nats-server-\(getpid())-\(port).log").path
        try start()
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    /// Starts the server (again) and waits until it accepts connections.
    public func start() throws {
        guard let executable = Self.executable else { throw ChildProcessError(Self.missingMessage) }
        precondition(process == nil, "the server is already running")
        process = try ChildProcess([executable, "-a", "127.0.0.1", "-p", String(port)], logPath: logPath)
        guard ChildProcess.waitForPort(port, seconds: 10) else {
            kill()
            throw ChildProcessError("nats-server did not listen on \(port): \(log)")
        }
    }

    /// SIGKILL: the server dies without closing anything politely (the
    /// kernel resets its connections), as in a crash.
    public func kill() {
        process?.stop(signal: SIGKILL)
        process = nil
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
}
