import SwitchboardJSON

/// The gateway's latency stages over a measurement: p50 and p99 of each
/// `switchboard_send_stage_seconds` stage between two /metrics scrapes.
/// Percentiles are interpolated linearly inside the histogram's buckets
/// (fine below 10 ms: SendStages.bucketBounds in the gateway), so they are
/// estimates to within a bucket.
public enum SendStages {
    public static let stages = ["receive", "queue", "commit", "handoff", "deliver", "total"]

    /// One stage between two scrapes: how many sends it timed, and its
    /// percentiles in ms (rounded to 3 places; nil without data).
    public struct Stage: Equatable, Sendable {
        public var name: String
        public var count: Int64
        public var p50Milliseconds: Double?
        public var p99Milliseconds: Double?
    }

    /// Every stage of `stages`, in that order, from the difference of two expositions.
    public static func between(before: String, after: String) -> [Stage] {
        let early = buckets(before)
        let late = buckets(after)
        return stages.map { stage in
            let earlier = Dictionary(
                (early[stage] ?? []).map { ($0.upper, $0.count) }, uniquingKeysWith: { _, last in last })
            let delta = (late[stage] ?? []).map { (upper: $0.upper, count: $0.count - (earlier[$0.upper] ?? 0)) }
            return Stage(
                name: stage, count: delta.last?.count ?? 0,
                p50Milliseconds: percentile(delta, 0.5).map(round3),
                p99Milliseconds: percentile(delta, 0.99).map(round3))
        }
    }

    /// `{stage: {"count", "p50_ms", "p99_ms"}}`, as the bench reports keep it.
    public static func json(_ stages: [Stage]) -> JSONValue {
        var object = JSONObject()
        for stage in stages {
            object[stage.name] = [
                "count": .int(Int(stage.count)),
                "p50_ms": stage.p50Milliseconds.map(JSONValue.double) ?? .null,
                "p99_ms": stage.p99Milliseconds.map(JSONValue.double) ?? .null,
            ]
        }
        return .object(object)
    }

    /// `{stage: [(upper bound in s, cumulative count)]}` from one exposition:
    /// lines exactly `switchboard_send_stage_seconds_bucket{stage="S",le="B"} N`.
    static func buckets(_ exposition: String) -> [String: [(upper: Double, count: Int64)]] {
        let prefix = "switchboard_send_stage_seconds_bucket{stage=\""
        var found: [String: [(upper: Double, count: Int64)]] = [:]
        for raw in exposition.split(separator: "\n") {
            let line = raw.trimmingWhitespace
            guard line.hasPrefix(prefix) else { continue }
            let rest = line.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\"") else { continue }
            let stage = rest[..<quote]
            guard !stage.isEmpty, stage.allSatisfy({ $0 >= "a" && $0 <= "z" }) else { continue }
            let afterStage = rest[rest.index(after: quote)...]
            guard afterStage.hasPrefix(",le=\""), let close = afterStage.dropFirst(5).firstIndex(of: "\"") else {
                continue
            }
            let bound = afterStage[afterStage.index(afterStage.startIndex, offsetBy: 5)..<close]
            let tail = afterStage[close...]
            guard !bound.isEmpty, tail.hasPrefix("\"} "), case let digits = tail.dropFirst(3), !digits.isEmpty,
                digits.allSatisfy({ $0 >= "0" && $0 <= "9" }), let count = Int64(digits)
            else { continue }
            let upper = bound == "+Inf" ? Double.infinity : Double(bound)
            guard let upper else { continue }
            found[String(stage), default: []].append((upper, count))
        }
        return found
    }

    /// The interpolated percentile (ms) of cumulative buckets; nil without data.
    /// Past the last finite bound the bound itself is reported.
    static func percentile(_ series: [(upper: Double, count: Int64)], _ fraction: Double) -> Double? {
        guard let total = series.last?.count, total != 0 else { return nil }
        let rank = fraction * Double(total)
        var lowerBound = 0.0
        var lowerCount: Int64 = 0
        for (upper, count) in series {
            if Double(count) >= rank {
                if upper == .infinity { return lowerBound * 1000 }
                let share = count > lowerCount ? (rank - Double(lowerCount)) / Double(count - lowerCount) : 1.0
                return (lowerBound + (upper - lowerBound) * share) * 1000
            }
            lowerBound = upper
            lowerCount = count
        }
        return nil
    }

    static func round3(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}

/// Single values out of a Prometheus text exposition.
public enum PrometheusText {
    /// The value of the first line that is `name` (with its labels, if any,
    /// written out in `name`) followed by a space; nil when there is none.
    public static func value(_ name: String, in exposition: String) -> Double? {
        let prefix = name + " "
        for line in exposition.split(separator: "\n") where line.hasPrefix(prefix) {
            let fields = line.split(separator: " ")
            return fields.count > 1 ? Double(fields[1]) : nil
        }
        return nil
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns.
    var trimmingWhitespace: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return self[startIndex..<startIndex]
        }
        return self[first...last]
    }
}
