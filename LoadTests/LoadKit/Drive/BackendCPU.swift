import SwitchboardSystem
import Synchronization

/// What each party costs the database, measured in the same run so that the
/// noise between runs does not enter: a command run while a `CPUSampler`
/// watches PostgreSQL's processes and pg_stat_activity names each backend
/// of `database` by its application_name ("switchboard-writer",
/// "switchboard-bus", ...).
enum BackendCPU {
    /// Runs `command` (it must succeed); its output, and the CPU-seconds each
    /// kind of backend used meanwhile, rounded to 2 places.
    static func run(
        _ command: [String], databaseURL: String, database: String
    ) throws -> (output: String, seconds: [String: Double]) {
        let names = Mutex<[Int32: String]>([:])
        let query = "SELECT pid, application_name FROM pg_stat_activity WHERE datname = '\(database)'"
        let sampler = CPUSampler()
        sampler.start()
        // Every 0.25 s for the first 5 s: the backends connect as the run starts.
        let namer = NamedThread.spawn(name: "backend-names") {
            for _ in 0..<20 {
                DriveClock.sleep(seconds: 0.25)
                guard let answer = try? CapturedCommand.run(["psql", "-X", "-At", databaseURL, "-c", query]) else {
                    continue
                }
                names.withLock { known in
                    for (pid, application) in parse(answer.standardOutput) { known[pid] = application }
                }
            }
        }
        let result: CapturedCommand
        do {
            result = try CapturedCommand.check(command)
        } catch {
            sampler.stop()
            namer.join()
            throw error
        }
        sampler.stop()
        namer.join()
        let known = names.withLock { $0 }
        var seconds: [String: Double] = [:]
        for (_, used) in sampler.intervals() {
            for (key, value) in used where key.label == "postgres" {
                seconds[known[key.pid] ?? "other", default: 0] += value
            }
        }
        return (result.standardOutput, seconds.mapValues { PythonFormat.round($0, 2) })
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
