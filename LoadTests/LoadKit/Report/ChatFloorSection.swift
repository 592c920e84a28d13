import SwitchboardJSON

#if canImport(Glibc)
import Glibc
#endif

/// The chat-floor section of docs/benchmarks.md (scripts/bench-chat-floor): the
/// cores the network floor (chat-floor against the harness) and the storage
/// floor (PostgreSQL's least work per row) take at the conversations rate.
public enum ChatFloorSection {
    public static let name = "chat-floor"

    /// The section's text from the run's result lines (`network` and `storage`
    /// objects); `rate` in messages/s; `cores` of this machine.
    public static func render(
        output: String, rate: Int, command: String, cores: Int = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
        heading: [String]? = nil
    ) -> String {
        let rows = BenchmarksDoc.jsonLines(output)
        let network = rows.filter { $0["kind"] == .string("network") }
        let storage = rows.first { $0["kind"] == .string("storage") }
        let rateText = PythonFormat.grouped(rate)
        var lines =
            heading
            ?? BenchmarksDoc.heading(
                "Chat floor: what the conversations target leaves for the gateway (scripts/bench-chat-floor)")
        lines += [
            "Command: `\(command)`. Network: chat-floor (LoadTests/Floors/chat-floor.c, a C epoll server that answers"
                + " the harness like the gateway but stores nothing) on core 0, the release `loadtest` conversations"
                + " scenario (1,000 sessions of 1 visitor + 2 operators, \(rateText) msg/s for 10 s) on core 1 at"
                + " nice -5, as scripts/bench runs it; with `--flush-ms W` chat-floor writes every W ms instead of"
                + " after every pass. Storage: one INSERT ... SELECT into `chats` (five indexes, the foreign key) on a"
                + " fresh durable PostgreSQL, the backend's CPU per row.",
            "",
            "| chat-floor writes | server | harness | server + harness | p50 / p99 send to delivery | acked |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for values in network {
            let server = number(values, "server_cores")
            let harness = number(values, "harness_cores")
            lines.append(
                "| \(when(values)) | \(fixed(server)) cores | \(fixed(harness)) cores | \(fixed(server + harness)) cores "
                    + "| \(fixed(number(values, "p50_ms"))) / \(fixed(number(values, "p99_ms"))) ms "
                    + "| \(PythonFormat.grouped(PythonFormat.int(values["stored_per_s"]) ?? 0)) msg/s |")
        }
        if let storage {
            let store = number(storage, "cores_at_rate")
            lines += [
                "",
                "PostgreSQL's least work per stored message: \(fixed(number(storage, "us_per_row"))) µs of backend CPU "
                    + "per row (\(PythonFormat.grouped(PythonFormat.int(storage["rows"]) ?? 0)) rows in "
                    + "\(fixed(number(storage, "backend_cpu_s"))) s), \(fixed(store)) cores at \(rateText) msg/s, "
                    + "before any session lock, numbering, duplicate answer, result or round trip (and with one commit).",
                "",
                "| chat-floor writes | network floor + storage floor | the machine's cores | left for everything else |",
                "| --- | ---: | ---: | ---: |",
            ]
            for values in network {
                let total = number(values, "server_cores") + number(values, "harness_cores") + store
                lines.append(
                    "| \(when(values)) | \(fixed(total)) cores | \(cores) | \(fixed(Double(cores) - total)) cores |")
            }
        }
        lines += BenchmarksDoc.rawOutput(output)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func when(_ values: JSONObject) -> String {
        let flush = PythonFormat.int(values["flush_ms"]) ?? 0
        return flush == 0 ? "after every pass" : "every \(flush) ms"
    }

    private static func number(_ values: JSONObject, _ key: String) -> Double {
        PythonFormat.float(values[key]) ?? .nan
    }

    private static func fixed(_ value: Double) -> String { PythonFormat.fixed(value, 2) }
}
