import SwitchboardCrypto

#if canImport(Glibc)
import Glibc
#endif

/// Reads a server process's memory and CPU time from /proc (the gateway
/// under load, or a benchmark peer).
public struct GatewayProbe: Sendable {
    public let pid: Int32

    public init(pid: Int32) {
        self.pid = pid
    }

    public var isAvailable: Bool { pid > 0 && (Self.read("/proc/\(pid)/status") != nil) }

    /// Resident set size in KiB (VmRSS), or nil.
    public func residentKiB() -> Int? {
        guard pid > 0, let status = Self.read("/proc/\(pid)/status") else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// User + system CPU seconds consumed so far, or nil.
    public func cpuSeconds() -> Double? {
        guard pid > 0, let stat = Self.read("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3; utime and stime are fields 14 and 15 (proc(5)).
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { _ = Glibc.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 16 * 1024)
        let count = Glibc.read(fd, &bytes, bytes.count)
        return count > 0 ? String(decoding: bytes[0..<count], as: UTF8.self) : nil
    }
}

/// A random (version 4) UUID for a run's own workspace.
enum RandomUUID {
    static func make() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }
}
