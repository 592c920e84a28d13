import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// A process's CPU time so far (user and system) from /proc/PID/stat, in
/// seconds; nil when it is gone. Read before and after a run, the difference
/// is what the run cost that process.
enum ProcessCPU {
    static func seconds(_ pid: pid_t) -> Double? {
        guard let bytes = ThisProcess.readFile("/proc/\(pid)/stat") else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        // The command name may hold spaces: the fields counted start after its ")".
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
