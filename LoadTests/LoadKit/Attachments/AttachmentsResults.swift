import SwitchboardJSON

/// What `loadtest bench-attachments` measured: the upload load alone for each
/// file size, and per repeat the fanout scenario's A/A run and its runs with
/// uploads in alternate windows.
/// Written to results.json and rendered by `AttachmentsSection`.
struct AttachmentsResults {
    typealias Shape = (sessions: Int, subscribers: Int, rate: Int)

    var command: String
    var started: String
    var seconds: Int
    /// The interleaved runs' length, window and settling time.
    var fanoutSeconds: Int
    var windowSeconds: Double
    var settleSeconds: Double
    var concurrency: Int
    var inFlightBudget: Int
    /// `attachments.max_write_bytes_per_second` beside the fanout (0: none).
    var pace: Int
    var shape: Shape
    /// The kernel's writeback when the fanout runs began.
    var writeback = HostWriteback()
    var throughput: [UploadRun] = []
    var repeats: [(control: FanoutRun, beside: [FanoutRun])] = []

    /// Runs whose correctness checks failed, or whose uploads were not all answered as they must be.
    var failed: [String] {
        var labels = repeats.flatMap { [$0.control] + $0.beside }.filter { $0.passed != true }.map(\.label)
        labels += throughput.filter { $0.counts.created == 0 || $0.counts.other > 0 || $0.counts.failed > 0 }
            .map(\.label)
        return labels
    }

    var json: JSONValue {
        let meta: JSONValue = [
            "started": .string(started), "command": .string(command), "seconds": .int(seconds),
            "fanout_seconds": .int(fanoutSeconds), "window_s": .double(windowSeconds),
            "settle_s": .double(settleSeconds),
            "concurrency": .int(concurrency), "in_flight_budget": .int(inFlightBudget), "pace": .int(pace),
            "shape": [.int(shape.sessions), .int(shape.subscribers), .int(shape.rate)],
            "writeback": writeback.json,
        ]
        let repeats: [JSONValue] = repeats.map { pair in
            ["control": pair.control.json, "beside": .array(pair.beside.map(\.json))]
        }
        return ["meta": meta, "throughput": .array(throughput.map(\.json)), "repeats": .array(repeats)]
    }
}

/// The upload load alone.
struct UploadRun {
    var label: String
    var size: Int
    var counts = UploadCounts()
    var gatewayCPUSeconds = 0.0
    var idleRSSKiB = 0
    var peakRSSKiB = 0
    /// Median busy cores while the uploads ran: machine, postgres, gateway, uploader.
    var cores: [String: Double] = [:]

    /// What one upload cost `party` in CPU-microseconds: its busy cores over the uploads per second.
    func microsecondsPerUpload(_ party: String) -> Double {
        guard let busy = cores[party], counts.uploadsPerSecond > 0 else { return .nan }
        return busy * 1_000_000 / counts.uploadsPerSecond
    }

    /// The gateway's CPU-seconds per MB stored.
    var cpuPerMegabyte: Double {
        counts.bytesStored > 0 ? gatewayCPUSeconds / (Double(counts.bytesStored) / 1_000_000) : .nan
    }

    var json: JSONValue {
        [
            "label": .string(label), "size": .int(size), "counts": counts.json,
            "gateway_cpu_s": .double(PythonFormat.round(gatewayCPUSeconds, 3)), "idle_rss_kib": .int(idleRSSKiB),
            "peak_rss_kib": .int(peakRSSKiB), "cores": .numbers(cores),
        ]
    }
}

/// One fanout run with its send-to-delivery latency split by alternating
/// windows: beside uploads of `uploadSize` bytes in the B windows only, or
/// (`uploadSize` nil) with nothing beside it, an A/A run whose two sides
/// differ only by the method's own noise.
struct FanoutRun {
    var label: String
    var uploadSize: Int?
    var passed: Bool?
    /// The A windows' and the B windows' latency, and the whole run's p99.
    var aP99Ms, bP99Ms, aP50Ms, bP50Ms: Double?
    var aCount, bCount: Int?
    var p99Ms: Double?
    var deliveriesPerSecond: Double?
    var uploads: UploadCounts?

    /// The B windows' p99 over the A windows', minus one.
    var change: Double { AttachmentsSection.change(bP99Ms, over: aP99Ms) }

    var json: JSONValue {
        [
            "label": .string(label), "upload_size": .optional(uploadSize), "passed": .optional(passed),
            "a_p99_ms": .optional(aP99Ms), "b_p99_ms": .optional(bP99Ms), "a_p50_ms": .optional(aP50Ms),
            "b_p50_ms": .optional(bP50Ms), "a_count": .optional(aCount), "b_count": .optional(bCount),
            "p99_ms": .optional(p99Ms), "change": .optional(change.isNaN ? nil : change),
            "deliveries_per_s": .optional(deliveriesPerSecond), "uploads": uploads?.json ?? .null,
        ]
    }
}
