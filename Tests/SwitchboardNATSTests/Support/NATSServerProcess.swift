import Foundation
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// A real nats-server (Debian's `nats-server` package) run as a child
/// process on 127.0.0.1 and a free port, killed with SIGKILL to simulate a
/// crash and started again on the same port. posix_spawn + waitpid:
/// Foundation's Process.waitUntilExit hangs in this test runner.
final class NATSServerProcess: @unchecked Sendable {
    /// The binary: $NATS_SERVER_BINARY, else `nats-server` in PATH or in the
    /// sbin directories Debian installs it to (not always in a user's PATH).
    static let executable: String? = {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["NATS_SERVER_BINARY"], !path.isEmpty {
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        let directories =
            (environment["PATH"] ?? "").split(separator: ":").map(String.init)
            + ["/usr/sbin", "/usr/local/sbin", "/usr/bin", "/usr/local/bin"]
        return directories.map { $0 + "/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    static let missingMessage =
        "nats-server is not installed (apt-get install nats-server, or set NATS_SERVER_BINARY): integration tests skipped"

    let port: UInt16
    let logPath: String
    private(set) var pid: pid_t?

    var url: String { "nats://127.0.0.1:\(port)" }

    /// Starts a server on a port that was free a moment ago.
    init() throws {
        port = try Self.freePort()
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
    func start() throws {
        guard let executable = Self.executable else { throw TestFailure(Self.missingMessage) }
        precondition(pid == nil, "the server is already running")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = [executable, "-a", "127.0.0.1", "-p", String(port)]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawn(&child, executable, &actions, nil, argv, environ)
        guard rc == 0 else { throw TestFailure("cannot start \(executable): error \(rc)") }
        pid = child
        guard waitUntil(timeout: 10, { Self.accepts(port: self.port) }) else {
            kill()
            throw TestFailure("nats-server did not listen on \(port): \(log)")
        }
    }

    /// SIGKILL: the server dies without closing anything politely (the
    /// kernel resets its connections), as in a crash.
    func kill() {
        guard let pid else { return }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        self.pid = nil
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    private static func freePort() throws -> UInt16 {
        let listener = try Socket.listen(
            on: SocketAddress(host: "127.0.0.1", port: 0, family: .inet), reusePort: false, backlog: 1)
        defer { Posix.close(listener) }
        guard let port = Socket.localPort(listener) else { throw TestFailure("no local port") }
        return port
    }

    /// Whether a TCP connection to the port succeeds within 200 ms.
    static func accepts(port: UInt16) -> Bool {
        guard let fd = try? Socket.connect(to: SocketAddress(host: "127.0.0.1", port: port, family: .inet)) else {
            return false
        }
        defer { Posix.close(fd) }
        var poll = PollSet([fd])
        poll.watch(0, for: .writable)
        guard (try? poll.wait(timeoutMilliseconds: 200)) == 1 else { return false }
        return (try? Socket.finishConnect(fd)) != nil
    }
}
