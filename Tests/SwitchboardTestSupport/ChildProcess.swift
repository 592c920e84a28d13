import Foundation
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// A program the tests run beside themselves (nats-server, the gateway's own
/// binary), its output appended to a log file. posix_spawn + waitpid:
/// Foundation's Process.waitUntilExit hangs in this test runner.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let logPath: String
    private var reaped = false

    /// Starts `arguments[0]` with `arguments`; standard output and error go to `logPath`.
    public init(_ arguments: [String], logPath: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let rc = posix_spawn(&child, arguments[0], &actions, nil, argv, environ)
        guard rc == 0 else { throw ChildProcessError("cannot start \(arguments[0]): error \(rc)") }
        pid = child
        self.logPath = logPath
    }

    deinit { stop(signal: SIGKILL) }

    /// Sends `signal` and waits for the process to end; its exit status, or
    /// nil when it was already reaped or ended by a signal.
    @discardableResult
    public func stop(signal: Int32) -> Int32? {
        guard !reaped else { return nil }
        _ = Glibc.kill(pid, signal)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        reaped = true
        let signalled = status & 0x7f
        return signalled == 0 ? (status >> 8) & 0xff : nil
    }

    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The path of this build's executable `name` (the gateway's `switchboard`): it
    /// sits next to the test bundle in the build folder (`swift build` builds both).
    public static func builtExecutable(_ name: String) throws -> String {
        let folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let path = folder.appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw ChildProcessError("no \(name) executable in \(folder.path): run `swift build` first")
        }
        return path
    }

    /// Its resident set (VmRSS), in KiB.
    public var residentKiB: Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// Its open TCP connections whose local port is `port` (a server's accepted
    /// connections, its listener not counted): its descriptors that are sockets
    /// found in /proc/net/tcp with that port, in any state but LISTEN.
    public func connections(localPort port: UInt16) -> Int {
        // procfs files report no size: read to the end, not what the size says.
        let data = FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() ?? Data()
        let table = String(decoding: data, as: UTF8.self)
        var inodes = Set<Substring>()
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
            guard fields.count > 9, fields[3] != "0A",
                let colon = fields[1].lastIndex(of: ":"),
                UInt16(fields[1][fields[1].index(after: colon)...], radix: 16) == port
            else { continue }
            inodes.insert(fields[9])
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
        return descriptors.count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(name)"),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(Substring(target.dropFirst(8).dropLast()))
        }
    }

    /// A loopback port that was free a moment ago, below the kernel's ephemeral
    /// range: a server restarted on it cannot find it taken as the source port
    /// of an outgoing connection (thousands of test clients make that likely).
    public static func freePort() throws -> UInt16 {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = Int(range.split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "") ?? 32768
        for _ in 0..<500 {
            let port = UInt16(Int.random(in: 10_000..<max(low, 11_000)))
            guard
                let listener = try? Socket.listen(
                    on: SocketAddress(host: "127.0.0.1", port: port, family: .inet), reusePort: false, backlog: 1)
            else { continue }
            Posix.close(listener)
            return port
        }
        throw ChildProcessError("no free port below \(low)")
    }

    /// Whether a TCP connection to the loopback port succeeds within 200 ms.
    public static func accepts(port: UInt16) -> Bool {
        guard let fd = try? Socket.connect(to: SocketAddress(host: "127.0.0.1", port: port, family: .inet)) else {
            return false
        }
        defer { Posix.close(fd) }
        var poll = PollSet([fd])
        poll.watch(0, for: .writable)
        guard (try? poll.wait(timeoutMilliseconds: 200)) == 1 else { return false }
        return (try? Socket.finishConnect(fd)) != nil
    }

    /// Polls `port` until it accepts connections or `seconds` pass.
    public static func waitForPort(_ port: UInt16, seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if accepts(port: port) { return true }
            usleep(50_000)
        }
        return false
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
