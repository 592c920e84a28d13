import SwitchboardSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// What went wrong in a driver's set-up: a program that would not start, a
/// gateway that never listened, a command that failed. The text says which.
public struct DriveError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// How a child process ended.
public enum ProcessExit: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    /// As Python's `returncode` has it: the exit code, or minus the signal.
    public var code: Int32 {
        switch self {
        case .exited(let code): return code
        case .signalled(let signal): return -signal
        }
    }

    public var succeeded: Bool { self == .exited(0) }

    public var description: String { String(code) }

    /// A `waitpid` status decoded (WIFEXITED / WTERMSIG, which Swift cannot import as macros).
    static func decode(_ status: Int32) -> ProcessExit {
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}

/// Where a child's standard output and standard error go.
public enum ProcessOutput: Sendable, Equatable {
    /// The driver's own (the terminal or the script's log).
    case inherit
    /// /dev/null.
    case discard
    /// Both appended to this file (created when missing).
    case file(String)
}

/// A program the driver runs beside itself (the gateway, a harness run,
/// `nats-server`): posix_spawnp with an argument vector, no shell, so
/// nothing is quoted or split. `arguments[0]` is looked up in PATH when it
/// has no slash. Not thread-safe: one thread owns it.
public final class SpawnedProcess {
    public let pid: pid_t
    public let arguments: [String]
    /// Set once the process has been reaped.
    public private(set) var exit: ProcessExit?

    /// `environment` nil: the driver's own.
    public init(
        _ arguments: [String], environment: [String: String]? = nil, output: ProcessOutput = .inherit
    ) throws(DriveError) {
        self.arguments = arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        switch output {
        case .inherit:
            break
        case .discard:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        pid = try Self.spawn(arguments, environment: environment, actions: &actions)
    }

    /// Held while a child starts, and while descriptors that no child may
    /// inherit are made (see `CapturedCommand`).
    static let spawnLock = Mutex(())

    /// Starts `arguments` with `actions` applied in the child; its pid.
    static func spawn(
        _ arguments: [String], environment: [String: String]?, actions: inout posix_spawn_file_actions_t
    ) throws(DriveError) -> pid_t {
        let result = spawnLock.withLock { _ in
            Result { () throws(DriveError) in try spawnLocked(arguments, environment: environment, actions: &actions) }
        }
        return try result.get()
    }

    /// `spawn`, with `spawnLock` held by the caller.
    static func spawnLocked(
        _ arguments: [String], environment: [String: String]?, actions: inout posix_spawn_file_actions_t
    ) throws(DriveError) -> pid_t {
        guard let program = arguments.first else { throw DriveError("no program to run") }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { envp?.forEach { free($0) } }
        // The child starts with no signal blocked and the usual ones at their
        // defaults, whatever this process (a test runner, a harness that
        // ignores SIGPIPE) has set: Python's subprocess does the same.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXFSZ] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child = pid_t()
        let rc =
            if let envp {
                posix_spawnp(&child, program, &actions, &attributes, argv, envp)
            } else {
                posix_spawnp(&child, program, &actions, &attributes, argv, environ)
            }
        guard rc == 0 else { throw DriveError("cannot start \(program): \(String(cString: strerror(rc)))") }
        return child
    }

    deinit {
        if exit == nil { stop(timeoutSeconds: 5) }
    }

    /// Sends `number` (SIGTERM, SIGKILL...) unless the process was reaped already.
    public func signal(_ number: Int32) {
        guard exit == nil else { return }
        _ = kill(pid, number)
    }

    /// The exit, if the process has ended (reaping it); nil while it runs.
    @discardableResult
    public func poll() -> ProcessExit? {
        if let exit { return exit }
        var status: Int32 = 0
        var rc: pid_t
        repeat { rc = waitpid(pid, &status, WNOHANG) } while rc == -1 && errno == EINTR
        if rc == pid { exit = ProcessExit.decode(status) }
        return exit
    }

    public var isRunning: Bool { poll() == nil }

    /// Waits for the end, at most `timeoutSeconds` (nil: as long as it takes);
    /// nil when it still runs at the deadline.
    @discardableResult
    public func wait(timeoutSeconds: Double? = nil) -> ProcessExit? {
        guard let timeoutSeconds else {
            if exit == nil {
                var status: Int32 = 0
                var rc: pid_t
                repeat { rc = waitpid(pid, &status, 0) } while rc == -1 && errno == EINTR
                if rc == pid { exit = ProcessExit.decode(status) }
            }
            return exit
        }
        let deadline = DriveClock.monotonicSeconds() + timeoutSeconds
        while poll() == nil {
            if DriveClock.monotonicSeconds() >= deadline { return nil }
            DriveClock.sleep(seconds: 0.02)
        }
        return exit
    }

    /// SIGTERM, then SIGKILL if it has not ended after `timeoutSeconds`; how it ended.
    @discardableResult
    public func stop(timeoutSeconds: Double = 20) -> ProcessExit {
        signal(SIGTERM)
        if let done = wait(timeoutSeconds: timeoutSeconds) { return done }
        signal(SIGKILL)
        return wait() ?? .signalled(SIGKILL)
    }
}
