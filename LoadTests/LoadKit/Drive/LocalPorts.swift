import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// Loopback ports for the servers a driver starts.
public enum LocalPorts {
    /// A port on 127.0.0.1 that nothing used a moment ago, below the kernel's
    /// ephemeral range (as scripts/lib/common.sh's `free_port`): a gateway
    /// restarted on it cannot find it taken as the source port of one of the
    /// thousands of connections the harness opens meanwhile.
    public static func free() throws(DriveError) -> UInt16 {
        let range = (try? TextFile.read("/proc/sys/net/ipv4/ip_local_port_range")) ?? ""
        let low = Int(range.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first ?? "") ?? 32768
        let top = low > 11_000 ? low : 32768
        for _ in 0..<500 {
            let port = UInt16(Int.random(in: 10_000..<top))
            if accepts(port: port) { continue }
            let address = SocketAddress(host: "127.0.0.1", port: port, family: .inet)
            guard let listener = try? Socket.listen(on: address, reusePort: false, backlog: 1) else { continue }
            Posix.close(listener)
            return port
        }
        throw DriveError("no free TCP port found below \(top)")
    }

    /// Whether a TCP connection to 127.0.0.1:`port` succeeds within `timeoutSeconds`.
    public static func accepts(port: UInt16, timeoutSeconds: Double = 0.2) -> Bool {
        guard let fd = try? Socket.connect(to: SocketAddress(host: "127.0.0.1", port: port, family: .inet)) else {
            return false
        }
        defer { Posix.close(fd) }
        var poll = PollSet([fd])
        poll.watch(0, for: .writable)
        guard (try? poll.wait(timeoutMilliseconds: Int32(timeoutSeconds * 1000))) == 1 else { return false }
        return (try? Socket.finishConnect(fd)) != nil
    }

    /// Polls until `port` accepts connections; false after `seconds`, or as
    /// soon as `process` (when given) has ended.
    public static func waitUntilAccepting(
        port: UInt16, seconds: Double, process: SpawnedProcess? = nil
    ) -> Bool {
        let deadline = DriveClock.monotonicSeconds() + seconds
        while DriveClock.monotonicSeconds() < deadline {
            if accepts(port: port) { return true }
            if let process, !process.isRunning { return false }
            DriveClock.sleep(seconds: 0.05)
        }
        return false
    }
}
