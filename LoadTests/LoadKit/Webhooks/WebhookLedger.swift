import SwitchboardJSON

/// What the receiver answers each webhook: the statuses of `--status-sequence`
/// (or `--fail-first N`: N times 500) in turn, then 200. By default the
/// sequence runs over the receiver's requests in arrival order; `perEvent`
/// runs it over each event's own arrivals (every event fails its first
/// attempts, then succeeds).
public struct WebhookStatusPlan: Sendable, Equatable {
    public var sequence: [Int]
    public var perEvent: Bool

    public init(sequence: [Int] = [], perEvent: Bool = false) {
        self.sequence = sequence
        self.perEvent = perEvent
    }

    /// The status for the `request`th webhook request (0-based), the
    /// `arrival`th arrival of its event.
    public func status(request: Int, arrival: Int) -> Int {
        let index = perEvent ? arrival : request
        return index < sequence.count ? sequence[index] : 200
    }

    /// `500,500,200`: statuses from 200 to 599, comma-separated.
    public static func parse(_ text: String) -> [Int]? {
        let statuses = text.split(separator: ",").map { Int(String($0).trimmingPythonSpace()) }
        guard !statuses.isEmpty, statuses.allSatisfy({ $0.map { (200...599).contains($0) } ?? false }) else {
            return nil
        }
        return statuses.compactMap { $0 }
    }
}

/// How a webhook's signature checked out.
public enum SignatureCheck: String, Sendable {
    /// An entry of `webhook-signature` signs it.
    case valid = "ok"
    /// None does, or the headers are missing.
    case invalid = "bad"
    /// The receiver has no secret: nothing checked.
    case unchecked = "none"
}

/// The receiver's record of every webhook that arrived, per event id: when
/// it first arrived and was first accepted (a 2xx), how often it arrived,
/// and its signatures; with the latency from the event's `created_at` to its
/// first acceptance. Counts cover the receiver's whole life; the latency and
/// the rates cover the window since the last reset (`POST /reset`).
public struct WebhookLedger: Sendable {
    struct Record: Sendable {
        var firstArrival: Int64
        var firstAccepted: Int64 = 0
        var arrivals: UInt32 = 0
        var accepted: UInt32 = 0
    }

    /// An event id of up to 32 bytes packed into words (no allocation per
    /// id); longer ones are kept as text.
    enum Key: Hashable, Sendable {
        case short(UInt64, UInt64, UInt64, UInt64, UInt8)
        case long(String)

        init(_ id: some Collection<UInt8>) {
            guard id.count <= 32 else {
                self = .long(String(decoding: id, as: UTF8.self))
                return
            }
            var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            for (index, byte) in id.enumerated() {
                let shifted = UInt64(byte) << UInt64((index % 8) * 8)
                switch index / 8 {
                case 0: words.0 |= shifted
                case 1: words.1 |= shifted
                case 2: words.2 |= shifted
                default: words.3 |= shifted
                }
            }
            self = .short(words.0, words.1, words.2, words.3, UInt8(id.count))
        }
    }

    private var records: [Key: Record] = [:]
    public private(set) var requests = 0
    public private(set) var events = 0
    public private(set) var delivered = 0
    public private(set) var duplicates = 0
    public private(set) var retries = 0
    public private(set) var badSignatures = 0
    public private(set) var staleTimestamps = 0
    public private(set) var withoutCreatedAt = 0
    public private(set) var malformed = 0
    public private(set) var answered: [Int: Int] = [:]
    public let startedMicros: Int64
    public let signaturesChecked: Bool
    /// The window since the last reset.
    private var window = Window()

    struct Window: Sendable {
        var resetMicros: Int64 = 0
        var firstMicros: Int64 = 0
        var lastMicros: Int64 = 0
        var events = 0
        var delivered = 0
        var latency = LatencyRecorder()
    }

    public init(startedMicros: Int64, signaturesChecked: Bool) {
        self.startedMicros = startedMicros
        self.signaturesChecked = signaturesChecked
        window.resetMicros = startedMicros
    }

    public var unique: Int { records.count }

    /// A request to another path (/stats, /reset), or one answered before it was a webhook.
    public mutating func countRequest(malformed isMalformed: Bool = false) {
        requests += 1
        if isMalformed { malformed += 1 }
    }

    /// A webhook of event `id` that arrived at `arrival` (Unix microseconds),
    /// the event created at `createdAt` (nil: not found in its body), signed
    /// `webhook-timestamp` seconds `timestamp`; returns the status to answer.
    /// A bad signature is answered 401 whatever the plan says.
    public mutating func record(
        id: some Collection<UInt8>, createdAt: Int64?, timestamp: Int64?, signature: SignatureCheck, arrival: Int64,
        plan: WebhookStatusPlan
    ) -> Int {
        requests += 1
        let key = Key(id)
        var record = records[key] ?? Record(firstArrival: arrival)
        var status = plan.status(request: events, arrival: Int(record.arrivals))
        events += 1
        if signature == .invalid {
            badSignatures += 1
            status = 401
        }
        if let timestamp, (timestamp - arrival / 1_000_000).magnitude > 300 { staleTimestamps += 1 }
        if record.accepted > 0 {
            duplicates += 1
        } else if record.arrivals > 0 {
            retries += 1
        }
        record.arrivals += 1
        if window.events == 0 { window.firstMicros = arrival }
        window.lastMicros = max(window.lastMicros, arrival)
        window.events += 1
        if (200...299).contains(status) {
            if record.accepted == 0 {
                record.firstAccepted = arrival
                delivered += 1
                window.delivered += 1
                if let createdAt {
                    window.latency.record(nanoseconds: UInt64(max(0, arrival - createdAt)) * 1000)
                } else {
                    withoutCreatedAt += 1
                }
            }
            record.accepted += 1
        }
        answered[status, default: 0] += 1
        records[key] = record
        return status
    }

    /// Starts a new window: the latency and the rates count from here.
    public mutating func reset(at now: Int64) {
        window = Window()
        window.resetMicros = now
    }

    public func summary(now: Int64) -> WebhookReceiverSummary {
        let span = Double(window.lastMicros - window.firstMicros) / 1e6
        let latency = window.latency
        return WebhookReceiverSummary(
            seconds: Double(now - startedMicros) / 1e6, requests: requests, events: events, unique: unique,
            delivered: delivered, duplicates: duplicates, retries: retries, badSignatures: badSignatures,
            signaturesChecked: signaturesChecked, staleTimestamps: staleTimestamps,
            withoutCreatedAt: withoutCreatedAt, malformed: malformed, answered: answered,
            windowSeconds: Double(now - window.resetMicros) / 1e6, windowEvents: window.events,
            windowDelivered: window.delivered,
            requestsPerSecond: window.events > 1 && span > 0 ? Double(window.events - 1) / span : nil,
            deliveredPerSecond: window.delivered > 1 && span > 0 ? Double(window.delivered - 1) / span : nil,
            latencyCount: Int(latency.count),
            latencyP50Ms: latency.count > 0 ? latency.milliseconds(atPercentile: 50) : nil,
            latencyP90Ms: latency.count > 0 ? latency.milliseconds(atPercentile: 90) : nil,
            latencyP99Ms: latency.count > 0 ? latency.milliseconds(atPercentile: 99) : nil,
            latencyMaxMs: latency.count > 0 ? latency.milliseconds(atPercentile: 100) : nil)
    }
}

/// The receiver's summary: what `GET /stats` answers, and what it prints
/// (and writes to `--out`) when it stops. Counts cover its whole life; the
/// `window` (latency, rates) the time since it started or was last reset.
public struct WebhookReceiverSummary: Sendable, Equatable {
    public var seconds: Double
    public var requests, events, unique, delivered, duplicates, retries, badSignatures: Int
    public var signaturesChecked: Bool
    public var staleTimestamps, withoutCreatedAt, malformed: Int
    public var answered: [Int: Int]
    public var windowSeconds: Double
    public var windowEvents, windowDelivered: Int
    /// Webhooks (and first acceptances) per second from the window's first arrival to its last.
    public var requestsPerSecond, deliveredPerSecond: Double?
    /// From the event's `created_at` to its first 2xx answer, in the window.
    public var latencyCount: Int
    public var latencyP50Ms, latencyP90Ms, latencyP99Ms, latencyMaxMs: Double?

    public var json: JSONValue {
        var answers = JSONObject()
        for (status, count) in answered.sorted(by: { $0.key < $1.key }) { answers[String(status)] = .int(count) }
        func number(_ value: Double?, _ places: Int) -> JSONValue {
            .optional(value.map { PythonFormat.round($0, places) })
        }
        return [
            "kind": "webhook-receiver", "seconds": number(seconds, 3), "requests": .int(requests),
            "events": .int(events), "unique": .int(unique), "delivered": .int(delivered),
            "duplicates": .int(duplicates), "retries": .int(retries), "bad_signatures": .int(badSignatures),
            "signatures_checked": .bool(signaturesChecked), "stale_timestamps": .int(staleTimestamps),
            "without_created_at": .int(withoutCreatedAt), "malformed": .int(malformed), "answered": .object(answers),
            "window_s": number(windowSeconds, 3), "window_events": .int(windowEvents),
            "window_delivered": .int(windowDelivered), "requests_per_s": number(requestsPerSecond, 1),
            "delivered_per_s": number(deliveredPerSecond, 1),
            "latency_ms": [
                "count": .int(latencyCount), "p50": number(latencyP50Ms, 3), "p90": number(latencyP90Ms, 3),
                "p99": number(latencyP99Ms, 3), "max": number(latencyMaxMs, 3),
            ],
        ]
    }

    /// From the JSON `json` gives (a driver reading `GET /stats`); nil when it is not one.
    public init?(json: JSONValue) {
        guard json["kind"]?.stringValue == "webhook-receiver" else { return nil }
        func int(_ key: String) -> Int { json[key]?.doubleValue.map { Int($0) } ?? 0 }
        func double(_ value: JSONValue?) -> Double? { value?.doubleValue }
        seconds = double(json["seconds"]) ?? 0
        requests = int("requests")
        events = int("events")
        unique = int("unique")
        delivered = int("delivered")
        duplicates = int("duplicates")
        retries = int("retries")
        badSignatures = int("bad_signatures")
        signaturesChecked = json["signatures_checked"]?.boolValue ?? false
        staleTimestamps = int("stale_timestamps")
        withoutCreatedAt = int("without_created_at")
        malformed = int("malformed")
        answered = [:]
        for (key, value) in json["answered"]?.members ?? [] {
            if let status = Int(key), let count = value.doubleValue { answered[status] = Int(count) }
        }
        windowSeconds = double(json["window_s"]) ?? 0
        windowEvents = int("window_events")
        windowDelivered = int("window_delivered")
        requestsPerSecond = double(json["requests_per_s"])
        deliveredPerSecond = double(json["delivered_per_s"])
        let latency = json["latency_ms"]
        latencyCount = latency?["count"]?.doubleValue.map { Int($0) } ?? 0
        latencyP50Ms = double(latency?["p50"])
        latencyP90Ms = double(latency?["p90"])
        latencyP99Ms = double(latency?["p99"])
        latencyMaxMs = double(latency?["max"])
    }

    init(
        seconds: Double, requests: Int, events: Int, unique: Int, delivered: Int, duplicates: Int, retries: Int,
        badSignatures: Int, signaturesChecked: Bool, staleTimestamps: Int, withoutCreatedAt: Int, malformed: Int,
        answered: [Int: Int], windowSeconds: Double, windowEvents: Int, windowDelivered: Int,
        requestsPerSecond: Double?, deliveredPerSecond: Double?, latencyCount: Int, latencyP50Ms: Double?,
        latencyP90Ms: Double?, latencyP99Ms: Double?, latencyMaxMs: Double?
    ) {
        self.seconds = seconds
        self.requests = requests
        self.events = events
        self.unique = unique
        self.delivered = delivered
        self.duplicates = duplicates
        self.retries = retries
        self.badSignatures = badSignatures
        self.signaturesChecked = signaturesChecked
        self.staleTimestamps = staleTimestamps
        self.withoutCreatedAt = withoutCreatedAt
        self.malformed = malformed
        self.answered = answered
        self.windowSeconds = windowSeconds
        self.windowEvents = windowEvents
        self.windowDelivered = windowDelivered
        self.requestsPerSecond = requestsPerSecond
        self.deliveredPerSecond = deliveredPerSecond
        self.latencyCount = latencyCount
        self.latencyP50Ms = latencyP50Ms
        self.latencyP90Ms = latencyP90Ms
        self.latencyP99Ms = latencyP99Ms
        self.latencyMaxMs = latencyMaxMs
    }
}
