import SwitchboardSystem
import Synchronization

/// What each party costs the database, measured in the same run so that the
/// noise between runs does not enter: while a `CPUSampler` watches
/// PostgreSQL's processes, each is named by its role. A client backend of
/// `database` by its application_name ("switchboard-writer",
/// "switchboard-webhook-dispatcher", ...), asked of pg_stat_activity once
/// per backend that appears; any other postgres process by its title
/// ("autovacuum", or "background" for the checkpointer, the WAL writer and
/// the rest).
final class BackendCPU: Sendable {
    private let databaseURL: String
    private let database: String
    private let sampler = CPUSampler()
    private let names = Mutex<[Int32: String]>([:])
    /// Client backends asked about and not named yet (a backend sets its
    /// application_name just after it connects), with the times asked.
    private let unnamed = Mutex<[Int32: Int]>([:])
    private let stopped = Atomic<Bool>(false)
    private let namer = Mutex<NamedThread?>(nil)

    /// Client backends of `database` (by default the one `databaseURL` names), asked about through `databaseURL`.
    init(databaseURL: String, database: String? = nil) {
        self.databaseURL = databaseURL
        self.database = database ?? Self.databaseName(databaseURL)
    }

    /// The database a `postgresql://.../name?options` URL names.
    static func databaseName(_ url: String) -> String {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Runs `command` (it must succeed); its output, and the CPU-seconds each
    /// kind of backend used meanwhile, rounded to 2 places.
    static func run(
        _ command: [String], databaseURL: String, database: String? = nil
    ) throws -> (output: String, seconds: [String: Double]) {
        let watch = BackendCPU(databaseURL: databaseURL, database: database)
        watch.start()
        let result: CapturedCommand
        do {
            result = try CapturedCommand.check(command)
        } catch {
            _ = watch.stop()
            throw error
        }
        return (result.standardOutput, watch.stop())
    }

    func start() {
        sampler.start()
        nameNewProcesses()
        namer.withLock {
            $0 = NamedThread.spawn(name: "backend-names") { [self] in
                while !stopped.load(ordering: .relaxed) {
                    DriveClock.sleep(seconds: 0.25)
                    nameNewProcesses()
                }
            }
        }
    }

    /// CPU-seconds by role since `start()`, rounded to 2 places; a process
    /// that could not be named is "other".
    func stop() -> [String: Double] {
        sampler.stop()
        stopped.store(true, ordering: .relaxed)
        namer.withLock { $0?.join() }
        nameNewProcesses()
        let known = names.withLock { $0 }
        var seconds: [String: Double] = [:]
        for (_, used) in sampler.intervals() {
            for (key, value) in used where key.label == "postgres" {
                seconds[known[key.pid] ?? "other", default: 0] += value
            }
        }
        return seconds.mapValues { PythonFormat.round($0, 2) }
    }

    /// Names every postgres process not named yet: by its title, or, for a
    /// client backend, by one question to pg_stat_activity for all of them.
    private func nameNewProcesses() {
        let known = names.withLock { Set($0.keys) }
        var clients: [Int32] = []
        var titled: [Int32: String] = [:]
        for pid in CPUSampler.processes() where !known.contains(pid) {
            guard let stat = try? TextFile.read("/proc/\(pid)/stat"), CPUSampler.parseStat(stat)?.name == "postgres",
                let command = try? TextFile.read("/proc/\(pid)/cmdline")
            else { continue }
            if let role = Self.auxiliaryRole(title: String(command.map { $0 == "\0" ? " " : $0 })) {
                titled[pid] = role
            } else {
                clients.append(pid)
            }
        }
        if !clients.isEmpty {
            let query = "SELECT pid, application_name FROM pg_stat_activity WHERE datname = '\(database)'"
            if let answer = try? CapturedCommand.run(["psql", "-X", "-At", databaseURL, "-c", query]) {
                let wanted = Set(clients)
                for (pid, application) in Self.parse(answer.standardOutput)
                where wanted.contains(pid) && application != "other" {
                    titled[pid] = application
                }
            }
            // Asked four times (a second) and still nameless: another database's, or unnamed.
            unnamed.withLock { tries in
                for pid in clients where titled[pid] == nil {
                    tries[pid, default: 0] += 1
                    if tries[pid]! >= 4 { titled[pid] = "other" }
                }
            }
        }
        names.withLock { $0.merge(titled) { first, _ in first } }
    }

    /// The role of a postgres process that is not a client backend, from its
    /// title ("postgres: autovacuum worker db", "postgres: checkpointer", ...);
    /// nil for a client backend ("postgres: user db host(port) state").
    static func auxiliaryRole(title: String) -> String? {
        guard title.hasPrefix("postgres: ") else { return "postmaster" }
        let rest = title.dropFirst("postgres: ".count)
        if rest.hasPrefix("autovacuum worker") { return "autovacuum" }
        let background = [
            "checkpointer", "walwriter", "background writer", "autovacuum launcher", "logical replication",
            "archiver", "stats collector", "walsender", "walreceiver", "startup",
        ]
        return background.contains { rest.hasPrefix($0) } ? "background" : nil
    }

    /// psql's unaligned "pid|application_name" rows; a backend without a name is "other".
    static func parse(_ text: String) -> [(pid: Int32, application: String)] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            guard let pid = Int32(parts[0]) else { return nil }
            let application = parts.count > 1 ? String(parts[1]) : ""
            return (pid, application.isEmpty ? "other" : application)
        }
    }
}
