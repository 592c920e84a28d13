import SwitchboardJSON

/// One sample of the gateway during a soak.
public struct SoakSample: Sendable, Equatable {
    /// Minutes since the traffic started (3 places).
    public var minutes: Double
    public var rssKiB: Int
    public var descriptors: Int
    public var queueDepth: Double
    /// p99 from receipt to ack over the interval since the previous sample; nil without one or without sends.
    public var p99Milliseconds: Double?
    /// The cores the hypervisor gave to other guests over that interval (`HostSteal`); nil where unknown.
    public var stolenCores: Double?

    public init(
        minutes: Double, rssKiB: Int, descriptors: Int, queueDepth: Double, p99Milliseconds: Double?,
        stolenCores: Double? = nil
    ) {
        self.minutes = minutes
        self.rssKiB = rssKiB
        self.descriptors = descriptors
        self.queueDepth = queueDepth
        self.p99Milliseconds = p99Milliseconds
        self.stolenCores = stolenCores
    }

    /// The series `key` (one of `SoakVerdict.series`).
    public func value(_ key: String) -> Double? {
        switch key {
        case "rss_kib": return Double(rssKiB)
        case "fds": return Double(descriptors)
        case "queue_depth": return queueDepth
        default: return p99Milliseconds
        }
    }
}

/// One harness round: its exit status, its report's correctness and acked count.
public struct SoakRound: Sendable, Equatable {
    public var number: Int
    public var exit: Int32
    public var correctness: JSONValue
    public var acked: Double
}

/// What the soak's traffic did besides the samples.
public struct SoakTraffic: Sendable, Equatable {
    public var rounds: [SoakRound] = []
    public var churnCycles = 0
    public var churnErrors = 0
    public var apiCalls = 0
    public var apiErrors = 0
    /// Workers that stopped: each fails the run.
    public var failures: [String] = []

    public init() {}
}

/// The verdict on a soak: whether a series grows after the warm-up, and
/// whether the traffic beside it went wrong.
public enum SoakVerdict {
    /// The series in the order reports list them, with their labels.
    public static let series = [
        ("rss_kib", "RSS (KiB)"), ("fds", "open descriptors"), ("queue_depth", "writer queue depth"),
        ("p99_ms", "p99 receipt to ack (ms)"),
    ]
    /// Largest slope, per minute, that counts as flat. RSS: 1 MiB a minute would be
    /// 1.4 GiB a day; descriptors: one a minute; queue depth: 50 commands a minute
    /// (it is 0 when the writer keeps up); p99: 0.5 ms a minute.
    public static let bounds = ["rss_kib": 1024.0, "fds": 1.0, "queue_depth": 50.0, "p99_ms": 0.5]
    /// Growth over the measured part of the run that is never a failure (it decides
    /// only for short runs: over the 22 measured minutes of a 30-minute run, each is
    /// below its per-minute bound).
    public static let floors = ["rss_kib": 8192.0, "fds": 20.0, "queue_depth": 200.0, "p99_ms": 10.0]
    /// Runs this long or longer are written to docs/benchmarks.md ("Soak"); shorter ones are checks.
    public static let recordedMinutes = 30.0
    /// The series a delay moves: a sample whose interval the host stole more
    /// than `stolenCoresLimit` from is left out of their lines. In a two-minute
    /// run of 2026-12-01 the p99 stayed at 8-15 ms while the host stole under
    /// 0.05 of a core and rose to 40-220 ms while it stole 0.4-0.7; a run that
    /// failed here that day (69.5 ms a minute) had the machine 170-188% busy
    /// over its last 50 s while its own processes used 108%. RSS and
    /// descriptors do not move with it and keep every sample.
    public static let delaySeries: Set<String> = ["queue_depth", "p99_ms"]
    public static let stolenCoresLimit = 0.1

    public struct Trend: Sendable, Equatable {
        public var key: String
        public var label: String
        /// Rounded to 3 places, as reported.
        public var slopePerMinute: Double
        public var boundPerMinute: Double
        public var grows: Bool
        /// Samples of the measured part the line went through.
        public var fitted: Int
        /// False when the host stole more than the limit in over half of the measured
        /// samples: too few left to say whether a delay series grows.
        public var judged: Bool
    }

    /// The samples after the first quarter of the run (the warm-up: allocator pools, caches).
    public static func measured(_ samples: [SoakSample]) -> ArraySlice<SoakSample> {
        samples[(samples.count / 4)...]
    }

    public static func judge(
        samples: [SoakSample], traffic: SoakTraffic
    ) -> (trends: [Trend], problems: [String]) {
        let kept = measured(samples)
        let window = kept.count > 1 ? kept[kept.endIndex - 1].minutes - kept[kept.startIndex].minutes : 0
        var trends: [Trend] = []
        var problems: [String] = []
        for (key, label) in series {
            let perMinute = bounds[key]!
            // A short run may grow by up to `floors` over its measured part: one round's
            // connections or one burst moves these figures that much, which says nothing of a leak.
            let bound = window > 0 ? max(perMinute, floors[key]! / window) : perMinute
            let fitted = delaySeries.contains(key) ? kept.filter(\.hostGaveItsCPU) : Array(kept)
            let judged = fitted.count * 2 >= kept.count
            let slope = LineFit.slope(fitted.map { (x: $0.minutes, y: $0.value(key)) })
            trends.append(
                Trend(
                    key: key, label: label, slopePerMinute: PythonFormat.round(slope, 3),
                    boundPerMinute: PythonFormat.round(bound, 3), grows: judged && slope > bound, fitted: fitted.count,
                    judged: judged))
            if judged && slope > bound {
                problems.append(
                    "\(label) grows \(PythonFormat.fixed(slope, 2)) per minute (bound \(PythonFormat.fixed(bound, 2)))")
            }
        }
        problems += traffic.failures
        for round in traffic.rounds where round.exit != 0 {
            problems.append("harness round \(round.number) failed: \(PythonFormat.json(round.correctness))")
        }
        if traffic.rounds.isEmpty { problems.append("no harness round finished") }
        if traffic.churnCycles == 0 { problems.append("the churn clients made no cycle") }
        if traffic.apiCalls == 0 || Double(traffic.apiErrors) > Double(traffic.apiCalls) * 0.01 {
            problems.append("API calls: \(traffic.apiErrors) errors in \(traffic.apiCalls)")
        }
        return (trends, problems)
    }
}

extension SoakSample {
    /// Whether the host stole at most `SoakVerdict.stolenCoresLimit` over this sample's interval (or nobody knows).
    var hostGaveItsCPU: Bool { (stolenCores ?? 0) <= SoakVerdict.stolenCoresLimit }
}
