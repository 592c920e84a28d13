import Foundation

/// CPU-seconds PostgreSQL has used on this machine: user and system time of
/// every process named `postgres`, plus what their exited children used (the
/// postmaster reaps finished backends and autovacuum workers, whose time then
/// shows in its children's fields), so a run's difference counts every
/// backend, the indexer's and the background writers' included. On a machine
/// too small for the wall-clock rates to settle (runs differ by a third),
/// CPU per message is the figure that compares (docs/benchmarks.md, "Search").
enum PostgresCPU {
    static func seconds() -> Double {
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.compactMap { Int32($0) } ?? []
        var ticks = 0
        for pid in pids {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"),
                text[text.index(after: open)..<close] == "postgres"
            else { continue }
            // After the name: state is field 3, utime 14, stime 15, cutime 16, cstime 17 (proc(5)).
            let fields = text[text.index(after: close)...].split(separator: " ")
            guard fields.count > 14 else { continue }
            ticks += fields[11...14].compactMap { Int($0) }.reduce(0, +)
        }
        return Double(ticks) / ticksPerSecond
    }
}
