import SwitchboardJSON

/// The transport section of docs/benchmarks.md (scripts/bench-transport) from
/// transport-bench's JSON lines: per server, round trips per second, CPU per
/// round trip in three regimes and memory per idle connection, then each
/// server against the gateway and against the echo floor.
public enum TransportSection {
    public static let name = "bench-transport"
    static let floor = "echo-floor"
    static let regimes: [(offered: Double, name: String)] = [
        (0, "closed loop"), (20000, "paced 20,000/s"), (5000, "paced 5,000/s"),
    ]

    /// One server's measurements: echo objects by offered rate, and its idle object.
    struct Server {
        var label: String
        var echo: [(offered: Double, object: JSONObject)] = []
        var idle: JSONObject?

        func echo(_ offered: Double) -> JSONObject? { echo.last { $0.offered == offered }?.object }
        func cpu(_ offered: Double) -> JSONValue? { echo(offered)?["server_cpu_us_per_round_trip"] }
    }

    /// The servers in the order the output first names them.
    static func servers(_ output: String) -> [Server] {
        var servers: [Server] = []
        for object in BenchmarksDoc.jsonLines(output) {
            let label = PythonFormat.str(object["label"], or: "?")
            var index = servers.firstIndex { $0.label == label }
            if index == nil {
                servers.append(Server(label: label))
                index = servers.count - 1
            }
            switch object["kind"] {
            case .string("echo")?:
                let offered = object["offered"].map { PythonFormat.float($0) ?? -1 } ?? 0
                servers[index!].echo.removeAll { $0.offered == offered }
                servers[index!].echo.append((offered, object))
            case .string("idle")?: servers[index!].idle = object
            default: break
            }
        }
        return servers
    }

    /// The section's text; `seconds`, `connections` and `idle` as given on the command line.
    public static func render(
        output: String, seconds: String, connections: String, idle: String, heading: [String]? = nil
    ) -> String {
        let servers = servers(output)
        var lines = heading ?? BenchmarksDoc.heading("Transport: WebSocket echo (scripts/bench-transport)")
        lines += [
            "Command: `scripts/bench-transport --seconds \(seconds) --connections \(connections) --idle \(idle)`."
                + " Each server pinned to core 0 (`taskset -c 0`), the client (`transport-bench`) to core 1; the gateway"
                + " runs one event loop (`--threads 1`).",
            "",
            "Echo: \(connections) connections, 64-byte text messages, each connection waits for its echo before"
                + " sending again; \(seconds) s per regime after a 1 s warm-up. Closed loop sends again at once (the"
                + " saturated cost, where one wake-up serves many messages); paced sends a fixed total rate spread"
                + " over the connections, so each message wakes the server. Server CPU is user + system time from"
                + " /proc/PID/stat. Idle: RSS growth per upgraded WebSocket connection at \(idle) connections"
                + " (no TLS, no deflate).",
            "",
            "| server | round trips/s (closed loop) | CPU per round trip: closed loop | paced 20,000/s | paced 5,000/s"
                + " | RSS per idle connection |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for server in servers {
            let rate = PythonFormat.str(server.echo(0)?["round_trips_per_s"], or: "n/a")
            let cpus = regimes.map { regime in
                let cpu = server.cpu(regime.offered)
                return PythonFormat.truthy(cpu) ? PythonFormat.str(cpu!) + " µs" : "n/a"
            }
            let per = server.idle?["bytes_per_connection"]
            let perText = PythonFormat.truthy(per) ? kib(per) : "n/a"
            lines.append("| \(server.label) | \(rate) | " + cpus.joined(separator: " | ") + " | \(perText) |")
        }
        if let ours = servers.first(where: { $0.label == "switchboard" }) {
            lines.append("")
            for server in servers where server.label != "switchboard" && server.label != floor {
                let parts = ratios(server, over: ours, decimals: 1)
                var memory = ""
                let mine = ours.idle?["bytes_per_connection"]
                let theirs = server.idle?["bytes_per_connection"]
                if PythonFormat.truthy(mine), PythonFormat.truthy(theirs), let a = PythonFormat.int(theirs),
                    let b = PythonFormat.int(mine)
                {
                    memory = "; " + PythonFormat.fixed(Double(a) / Double(b), 0) + "x the memory per idle connection"
                }
                lines.append(
                    "- \(server.label) spends " + parts.joined(separator: ", ")
                        + " the server CPU per round trip that switchboard does\(memory).")
            }
        }
        if let base = servers.first(where: { $0.label == floor }) {
            lines.append(
                "- Against \(floor) (LoadTests/Floors/echo-floor.c: a minimal C epoll echo, one read and one write per"
                    + " message, so its cost is the kernel's loopback TCP and the epoll sleep and wake-up that any"
                    + " server pays here):")
            for server in servers where server.label != floor {
                let parts = ratios(server, over: base, decimals: 2)
                lines.append(
                    "  - \(server.label): " + parts.joined(separator: ", ") + " the floor's CPU per round trip.")
            }
        }
        lines += BenchmarksDoc.rawOutput(output)
        return lines.joined(separator: "\n") + "\n"
    }

    /// `server`'s CPU per round trip over `base`'s, per regime both measured: ["2.4x (closed loop)", ...].
    static func ratios(_ server: Server, over base: Server, decimals: Int) -> [String] {
        regimes.compactMap { regime in
            let theirs = server.cpu(regime.offered)
            let reference = base.cpu(regime.offered)
            guard PythonFormat.truthy(theirs), PythonFormat.truthy(reference), let a = PythonFormat.float(theirs),
                let b = PythonFormat.float(reference)
            else { return nil }
            return PythonFormat.fixed(a / b, decimals) + "x (\(regime.name))"
        }
    }

    private static func kib(_ value: JSONValue?) -> String {
        guard let bytes = PythonFormat.int(value) else { return "n/a" }
        return PythonFormat.fixed(Double(bytes) / 1024, 2) + " KiB"
    }
}
