import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// The CPU time the hypervisor gave to other guests ("steal", the eighth
/// figure of /proc/stat's first line): while it is high, every latency this
/// machine measures says more about its neighbours than about the gateway.
/// One reading is a counter; `cores(between:and:seconds:)` turns two of them
/// into the cores taken on average over the time between.
public enum HostSteal {
    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The steal counter now (in clock ticks, every CPU together); nil where
    /// /proc/stat cannot be read or has no such figure.
    public static func ticks() -> Int? {
        (try? TextFile.read("/proc/stat")).flatMap(parse)
    }

    /// The steal counter of a /proc/stat text.
    public static func parse(_ stat: String) -> Int? {
        CPUCounters(stat: stat)?.steal
    }

    /// The cores taken on average between two readings `seconds` apart.
    public static func cores(between before: Int?, and after: Int?, seconds: Double) -> Double? {
        guard let before, let after, seconds > 0, after >= before else { return nil }
        return Double(after - before) / ticksPerSecond / seconds
    }
}
