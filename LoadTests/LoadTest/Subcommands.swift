import LoadKit

#if canImport(Glibc)
import Glibc
#endif

/// The drivers `loadtest` runs besides a scenario: `loadtest NAME [options]`.
/// Each entry takes the arguments after its name and returns the exit status;
/// its own `--help` says what it does. A scenario name is not in this table:
/// scenarios go through `LoadOptions`.
let subcommands: [(name: String, summary: String, run: @Sendable ([String]) -> Int32)] = [
    ("abuser", "one address flooding the gateway with slow-loris connections (bench-abuse's)", AbuserDriver.main),
    (
        "bench-abuse", "the fanout scenario's latency with and without an abusive address (scripts/bench-abuse)",
        AbuseDriver.main
    ),
    ("bench-cluster", "what NOTIFY and a second node cost (scripts/bench-cluster)", ClusterDriver.main),
    (
        "bench-latency", "the gateway's latency above its own commit, shape by shape (scripts/bench-latency)",
        LatencyDriver.main
    ),
]

func subcommandUsage() -> String {
    guard !subcommands.isEmpty else { return "" }
    let width = subcommands.map(\.name.count).max() ?? 0
    let lines = subcommands.map { entry in
        "  " + entry.name + String(repeating: " ", count: width - entry.name.count + 2) + entry.summary
    }
    return "\ndrivers (loadtest NAME --help for each):\n" + lines.joined(separator: "\n")
}
