import SwitchboardJSON

#if canImport(Glibc)
import Glibc
#endif

/// `loadtest chat-floor-row network|storage ...`: one result line of scripts/bench-chat-floor.
public enum ChatFloorRowDriver {
    static let help = """
        usage: loadtest chat-floor-row network CONVERSATIONS_JSON FLUSH_MS
               loadtest chat-floor-row storage STAT_BEFORE STAT_AFTER ROWS RATE

        Prints one JSON line for scripts/bench-chat-floor's results (the chat-floor
        section of docs/benchmarks.md reads them). network: the server's and the
        harness's cores, stored messages/s and send-to-delivery p50/p99 from the
        harness's conversations report against chat-floor. storage: the backend's
        CPU seconds between two copies of /proc/PID/stat, per row and in cores at
        RATE messages/s.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        if DriverOutput.help(arguments, help) { return 0 }
        do {
            switch (arguments.first, arguments.count) {
            case ("network", 3):
                guard let flush = Int(arguments[2]) else {
                    return DriverOutput.usage("chat-floor-row", "FLUSH_MS: whole ms")
                }
                let report = try JSONParser.parse(try TextFile.read(arguments[1]), limits: .reports)
                print(try ChatFloorRows.network(report: report, flushMs: flush))
            case ("storage", 5):
                guard let rows = Int(arguments[3]), let rate = Int(arguments[4]), rows > 0 else {
                    return DriverOutput.usage("chat-floor-row", "ROWS and RATE: whole numbers")
                }
                print(
                    try ChatFloorRows.storage(
                        before: try TextFile.read(arguments[1]), after: try TextFile.read(arguments[2]), rows: rows,
                        rate: rate, ticks: sysconf(Int32(_SC_CLK_TCK))))
            default:
                return DriverOutput.usage("chat-floor-row", "wrong arguments (--help)")
            }
        } catch {
            return DriverOutput.usage("chat-floor-row", "\(error)")
        }
        return 0
    }
}
