import SwitchboardJSON

/// What `loadtest bench-attachments` measured: the upload load alone for each
/// file size, and per repeat the fanout scenario alone and beside uploads.
/// Written to results.json and rendered by `AttachmentsSection`.
struct AttachmentsResults {
    typealias Shape = (sessions: Int, subscribers: Int, rate: Int)

    var command: String
    var started: String
    var seconds: Int
    var concurrency: Int
    var inFlightBudget: Int
    /// `attachments.max_write_bytes_per_second` beside the fanout (0: none).
    var pace: Int
    var shape: Shape
    var throughput: [UploadRun] = []
    var repeats: [(alone: FanoutRun, beside: [FanoutRun])] = []

    /// Runs whose correctness checks failed, or whose uploads were not all answered as they must be.
    var failed: [String] {
        var labels = repeats.flatMap { [$0.alone] + $0.beside }.filter { $0.passed != true }.map(\.label)
        labels += throughput.filter { $0.counts.created == 0 || $0.counts.other > 0 || $0.counts.failed > 0 }
            .map(\.label)
        return labels
    }

    var json: JSONValue {
        let meta: JSONValue = [
            "started": .string(started), "command": .string(command), "seconds": .int(seconds),
            "concurrency": .int(concurrency), "in_flight_budget": .int(inFlightBudget), "pace": .int(pace),
            "shape": [.int(shape.sessions), .int(shape.subscribers), .int(shape.rate)],
        ]
        let repeats: [JSONValue] = repeats.map { pair in
            ["alone": pair.alone.json, "beside": .array(pair.beside.map(\.json))]
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

    /// The gateway's CPU-seconds per MB stored.
    var cpuPerMegabyte: Double {
        counts.bytesStored > 0 ? gatewayCPUSeconds / (Double(counts.bytesStored) / 1_000_000) : .nan
    }

    var json: JSONValue {
        [
            "label": .string(label), "size": .int(size), "counts": counts.json,
            "gateway_cpu_s": .double(PythonFormat.round(gatewayCPUSeconds, 3)), "idle_rss_kib": .int(idleRSSKiB),
            "peak_rss_kib": .int(peakRSSKiB),
        ]
    }
}

/// One fanout run, alone (`uploadSize` nil) or beside uploads of that size.
struct FanoutRun {
    var label: String
    var uploadSize: Int?
    var passed: Bool?
    var p50Ms, p99Ms: Double?
    /// Inside the gateway (frame read to ack written): what the harness's core does not move.
    var insideP99Ms: Double?
    var deliveriesPerSecond: Double?
    var uploads: UploadCounts?

    var json: JSONValue {
        [
            "label": .string(label), "upload_size": .optional(uploadSize), "passed": .optional(passed),
            "p50_ms": .optional(p50Ms), "p99_ms": .optional(p99Ms), "inside_p99_ms": .optional(insideP99Ms),
            "deliveries_per_s": .optional(deliveriesPerSecond), "uploads": uploads?.json ?? .null,
        ]
    }
}
