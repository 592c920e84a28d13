import LoadKit

#if canImport(Glibc)
import Glibc
#endif

/// The drivers `loadtest` runs besides a scenario: `loadtest NAME [options]`.
/// Each entry takes the arguments after its name and returns the exit status;
/// its own `--help` says what it does. A scenario name is not in this table:
/// scenarios go through `LoadOptions`.
let subcommands: [(name: String, summary: String, run: @Sendable ([String]) -> Int32)] = [
    ("soak", "mixed traffic for minutes; fails when RSS, descriptors, queue or p99 grow", SoakDriver.main),
    ("chaos", "faults under load (or --drain: SIGTERM under load); fails when anything is lost", ChaosDriver.main),
    ("doc", "writes a benchmark's section of docs/benchmarks.md (or the fuzzing campaign's)", DocDriver.main),
    ("chat-report", "renders scripts/bench's chat section from its report directory", ChatReportDriver.main),
    ("chat-floor-row", "one result line of scripts/bench-chat-floor", ChatFloorRowDriver.main),
    ("seed-sessions", "creates sessions with messages as one visitor (scripts/api-fuzz)", SeedSessionsDriver.main),
    ("transcript", "plays a short conversation and prints every frame (docs/protocol.md)", TranscriptDriver.main),
    ("check-imports", "checks Package.swift's layering and its table in docs/architecture.md", CheckImportsDriver.main),
    ("abuser", "one address flooding the gateway with slow-loris connections (bench-abuse)", AbuserDriver.main),
    ("bench-abuse", "fanout latency with and without an abusive address (scripts/bench-abuse)", AbuseDriver.main),
    ("uploader", "concurrent uploaders of one file size (bench-attachments)", UploaderDriver.main),
    (
        "bench-attachments", "upload throughput and the fanout p99 beside uploads (scripts/bench-attachments)",
        AttachmentsDriver.main
    ),
    (
        "webhook-receiver", "a fast local webhook receiver that checks signatures and counts events (bench-webhooks)",
        WebhookReceiverDriver.main
    ),
    ("webhook-sender", "signed webhooks as fast as a receiver answers them (its capacity)", WebhookSenderDriver.main),
    (
        "bench-webhooks", "webhooks delivered/s, commit-to-delivery latency, the writer with and without an endpoint",
        WebhooksDriver.main
    ),
    ("bench-cluster", "what NOTIFY and a second node cost (scripts/bench-cluster)", ClusterDriver.main),
    ("bench-latency", "the gateway's latency above its own commit (scripts/bench-latency)", LatencyDriver.main),
    (
        "bench-routing", "time to an operator and what routing costs the chat path (scripts/bench-routing)",
        RoutingDriver.main
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
