/// What one shard's scenario run leaves for the merge, besides the shard's own counters.
struct ShardOutcome {
    let shard: Shard
    /// Seconds to bring every connection up (all waves).
    var connectSeconds = 0.0
    var connections = 0
    /// How many of `connections` went to each node (index into the `--url`s).
    var connectionsPerNode: [Int] = []
    /// Storm: seconds for the dropped operators to be back, and how many.
    var reconnectSeconds = 0.0
    var reconnections = 0
    /// When the measured traffic began (the end of the warm-up).
    var measureFrom: UInt64 = 0
    var drained = true
    /// Gateway readings (shard 0 only).
    var rssBeforeKiB: Int?
    var rssAfterKiB: Int?
    var gatewayCPUSeconds: Double?
    /// The harness process's CPU seconds over the same window.
    var harnessCPUSeconds: Double?
    /// Wall-clock seconds the CPU readings cover.
    var cpuWallSeconds = 0.0
    var rampSteps: [RampStep] = []
}

/// One rate of a ramp and what it got.
struct RampStep {
    var rate: Double
    var sent: Int
    var acked: Int
    var p99Milliseconds: Double
    var passed: Bool
}
