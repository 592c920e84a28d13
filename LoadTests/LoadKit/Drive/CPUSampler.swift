import SwitchboardSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where a machine's CPU went while a measurement ran: the whole machine's
/// busy cores and what the host stole (from /proc/stat), PostgreSQL's (every
/// process named postgres) and the named processes' (by a command-line
/// substring), sampled twice a
/// second on a thread of its own. `cores()` gives each one's median over the
/// half-second intervals, so a run's steady state, not its set-up or its
/// final checks, is what shows. The driver's own process never counts.
final class CPUSampler: Sendable {
    /// What one sample read: CPU ticks by key ("machine", or a label and a pid).
    struct Sample: Sendable {
        var seconds: Double
        var ticks: [Key: Int]
    }

    struct Key: Hashable, Sendable {
        var label: String
        var pid: Int32
        static let machine = Key(label: "machine", pid: 0)
        static let steal = Key(label: "steal", pid: 0)
    }

    /// (label, command-line substring), in the order the report lists them.
    let named: [(label: String, needle: String)]
    private let samples = Mutex<[Sample]>([])
    private let stopped = Atomic<Bool>(false)
    private let thread = Mutex<NamedThread?>(nil)
    private let clock = Double(sysconf(Int32(_SC_CLK_TCK)))

    init(named: [(label: String, needle: String)] = []) {
        self.named = named
    }

    /// Samples while `body` runs, and once before and after it.
    func measure<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        start()
        defer { stop() }
        return try body()
    }

    func start() {
        sample()
        thread.withLock {
            $0 = NamedThread.spawn(name: "cpu-sampler") { [self] in
                while !waitHalfSecond() { sample() }
            }
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        thread.withLock { $0?.join() }
        sample()
    }

    /// True as soon as the sampler is stopped, else after half a second.
    private func waitHalfSecond() -> Bool {
        for _ in 0..<10 {
            if stopped.load(ordering: .relaxed) { return true }
            ThisProcess.sleep(milliseconds: 50)
        }
        return stopped.load(ordering: .relaxed)
    }

    private func sample() {
        guard let stat = try? TextFile.read("/proc/stat"), let counters = CPUCounters(stat: stat) else { return }
        // Timed with the machine's counters: the scan of every process below can take a while.
        let now = DriveClock.monotonicSeconds()
        var ticks: [Key: Int] = [.machine: counters.busy]
        if let steal = counters.steal { ticks[.steal] = steal }
        let own = getpid()
        for pid in Self.processes() where pid != own {
            guard let text = try? TextFile.read("/proc/\(pid)/stat"), let (name, used) = Self.parseStat(text) else {
                continue
            }
            if name == "postgres" {
                ticks[Key(label: "postgres", pid: pid)] = used
                continue
            }
            guard let command = try? TextFile.read("/proc/\(pid)/cmdline") else { continue }
            let spaced = String(command.map { $0 == "\0" ? " " : $0 })
            for (label, needle) in named where spaced.contains(needle) {
                ticks[Key(label: label, pid: pid)] = used
            }
        }
        samples.withLock { $0.append(Sample(seconds: now, ticks: ticks)) }
    }

    /// The command name and the user + system ticks of a /proc/PID/stat text.
    static func parseStat(_ text: String) -> (name: String, ticks: Int)? {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")") else { return nil }
        let name = String(text[text.index(after: open)..<close])
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return (name, user + system)
    }

    static func processes() -> [Int32] {
        guard let directory = opendir("/proc") else { return [] }
        defer { closedir(directory) }
        var pids: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let pid = Int32(name) { pids.append(pid) }
        }
        return pids
    }

    /// Per half-second interval: its length in seconds and the CPU-seconds
    /// each key used in it, for the processes alive at both of its ends.
    func intervals() -> [(length: Double, used: [Key: Double])] {
        let taken = samples.withLock { $0 }
        return zip(taken, taken.dropFirst()).map { before, after in
            var used: [Key: Double] = [:]
            for (key, ticks) in after.ticks {
                if let earlier = before.ticks[key] { used[key] = Double(ticks - earlier) / clock }
            }
            return (after.seconds - before.seconds, used)
        }
    }

    /// Median busy cores per label over the intervals: machine (its own work,
    /// not what the host stole), steal (the host's, where the kernel reports
    /// it: unknown is left out, not zero), postgres, and each named label.
    func cores() -> [String: Double] {
        let stealKnown = samples.withLock { $0.contains { $0.ticks[.steal] != nil } }
        let labels = ["machine"] + (stealKnown ? ["steal"] : []) + ["postgres"] + named.map(\.label)
        var rates: [String: [Double]] = [:]
        for (length, used) in intervals() where length > 0 {
            var interval: [String: Double] = [:]
            for (key, seconds) in used { interval[key.label, default: 0] += seconds }
            for label in labels { rates[label, default: []].append((interval[label] ?? 0) / length) }
        }
        return rates.compactMapValues { values in
            let sorted = values.sorted()
            return sorted.isEmpty ? nil : PythonFormat.round(sorted[sorted.count / 2], 2)
        }
    }
}
