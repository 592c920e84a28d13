import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// A command run to its end with its output kept (psql, pg_ctl, a bench
/// binary that prints JSON lines): Python's `subprocess.run(capture_output=True)`.
public struct CapturedCommand: Sendable {
    public var exit: ProcessExit
    public var standardOutput: String
    public var standardError: String

    /// Runs `arguments` (PATH lookup, no shell) and reads both outputs to
    /// their end; standard input is /dev/null.
    public static func run(
        _ arguments: [String], environment: [String: String]? = nil
    ) throws(DriveError) -> CapturedCommand {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Pipes made and the child started under the lock every spawn takes: a
        // child started meanwhile by another thread must not inherit a write end
        // (pipe2 with O_CLOEXEC is not in Glibc's Swift overlay), or this read
        // would wait for that child's end.
        let started = SpawnedProcess.spawnLock.withLock { _ -> Result<pid_t, DriveError> in
            guard makePipe(&out), makePipe(&err) else {
                for fd in out + err where fd >= 0 { Posix.close(fd) }
                return .failure(DriveError("pipe: \(String(cString: strerror(errno)))"))
            }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, out[1], 1)
            posix_spawn_file_actions_adddup2(&actions, err[1], 2)
            return Result { () throws(DriveError) in
                try SpawnedProcess.spawnLocked(arguments, environment: environment, actions: &actions)
            }
        }
        let pid: pid_t
        switch started {
        case .success(let child):
            pid = child
        case .failure(let error):
            for fd in out + err where fd >= 0 { Posix.close(fd) }
            throw error
        }
        Posix.close(out[1])
        Posix.close(err[1])
        let (stdout, stderr) = readBoth(out[0], err[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return CapturedCommand(
            exit: ProcessExit.decode(status), standardOutput: String(decoding: stdout, as: UTF8.self),
            standardError: String(decoding: stderr, as: UTF8.self))
    }

    /// Like `run`, but a command that fails is an error naming it, with what it printed on standard error.
    @discardableResult
    public static func check(
        _ arguments: [String], environment: [String: String]? = nil
    ) throws(DriveError) -> CapturedCommand {
        let result = try run(arguments, environment: environment)
        guard result.exit.succeeded else {
            let detail = result.standardError.split(separator: "\n").suffix(5).joined(separator: "\n")
            throw DriveError(
                "\(arguments.joined(separator: " ")) failed (exit \(result.exit))\(detail.isEmpty ? "" : ": " + detail)"
            )
        }
        return result
    }

    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// Both pipes read to their end, in turn as each has data, so that a
    /// child filling one while the other is read cannot block.
    private static func readBoth(_ first: Int32, _ second: Int32) -> ([UInt8], [UInt8]) {
        var collected: [[UInt8]] = [[], []]
        var open = [true, true]
        let descriptors = [first, second]
        var chunk = [UInt8](repeating: 0, count: 65536)
        while open[0] || open[1] {
            // A negative descriptor is one poll(2) skips: the pipe that has ended.
            var set = PollSet([open[0] ? first : -1, open[1] ? second : -1])
            guard (try? set.wait(timeoutMilliseconds: -1)) != nil else { continue }
            for index in 0..<2 where open[index] && !set.ready(index).isEmpty {
                let count = chunk.withUnsafeMutableBytes { read(descriptors[index], $0.baseAddress, $0.count) }
                if count > 0 {
                    collected[index].append(contentsOf: chunk[0..<count])
                } else if count == 0 || errno != EINTR {
                    open[index] = false
                    Posix.close(descriptors[index])
                }
            }
        }
        return (collected[0], collected[1])
    }
}
