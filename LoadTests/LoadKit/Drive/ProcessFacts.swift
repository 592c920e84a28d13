import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// What /proc says about a process: its resident memory and its open
/// descriptors, which a soak samples to see whether either grows.
public enum ProcessFacts {
    /// VmRSS in KiB; nil when the process is gone.
    public static func residentKiB(_ pid: pid_t) -> Int? {
        ThisProcess.readFile("/proc/\(pid)/status").flatMap { residentKiB(status: String(decoding: $0, as: UTF8.self)) }
    }

    /// The VmRSS line of a /proc/PID/status text ("VmRSS:   30876 kB").
    static func residentKiB(status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// Entries of /proc/PID/fd; nil when the process is gone.
    public static func openDescriptors(_ pid: pid_t) -> Int? {
        guard let directory = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { count += 1 }
        }
        return count
    }
}

extension TextFile {
    /// `directory/name`, without doubling a slash.
    public static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
