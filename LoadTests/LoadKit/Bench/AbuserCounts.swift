import SwitchboardJSON

/// What one abuser run did: its attempts, how the gateway answered them, and
/// what it held. Printed as one JSON line (`loadtest abuser`) and read back by
/// `loadtest bench-abuse`, whose report shows the attempts and the most held.
struct AbuserCounts: Equatable, Sendable {
    var attempts = 0
    var connectFailed = 0
    var answered429 = 0
    var answered503 = 0
    var answered408 = 0
    var answeredOther = 0
    var closedUnanswered = 0
    var maxHeld = 0
    var skippedAtMaxOpen = 0
    var closedAtWindowEnd = 0
    var heldAtEnd = 0
    var seconds = 0.0
    var cpuSeconds = 0.0

    /// Counts a connection the gateway closed by the status it answered with
    /// (the first bytes it sent: "HTTP/1.1 429 ..."), if any.
    mutating func count(answer: [UInt8]) {
        let status = answer.count >= 12 ? String(decoding: answer[9..<12], as: UTF8.self) : ""
        switch status {
        case "429": answered429 += 1
        case "503": answered503 += 1
        case "408": answered408 += 1
        default:
            if answer.isEmpty { closedUnanswered += 1 } else { answeredOther += 1 }
        }
    }

    private var members: [(String, JSONValue)] {
        [
            ("attempts", .int(attempts)), ("connect_failed", .int(connectFailed)),
            ("answered_429", .int(answered429)), ("answered_503", .int(answered503)),
            ("answered_408", .int(answered408)), ("answered_other", .int(answeredOther)),
            ("closed_unanswered", .int(closedUnanswered)), ("max_held", .int(maxHeld)),
            ("skipped_at_max_open", .int(skippedAtMaxOpen)), ("closed_at_window_end", .int(closedAtWindowEnd)),
            ("held_at_end", .int(heldAtEnd)), ("seconds", .double(PythonFormat.round(seconds, 2))),
            ("cpu_seconds", .double(PythonFormat.round(cpuSeconds, 2))),
        ]
    }

    var json: JSONValue {
        var object = JSONObject()
        for (key, value) in members { object[key] = value }
        return .object(object)
    }
}

extension AbuserCounts {
    /// The counts a JSON line of `json` holds (missing members count 0).
    init(json: JSONValue) {
        func int(_ key: String) -> Int { PythonFormat.int(json[key]) ?? 0 }
        attempts = int("attempts")
        connectFailed = int("connect_failed")
        answered429 = int("answered_429")
        answered503 = int("answered_503")
        answered408 = int("answered_408")
        answeredOther = int("answered_other")
        closedUnanswered = int("closed_unanswered")
        maxHeld = int("max_held")
        skippedAtMaxOpen = int("skipped_at_max_open")
        closedAtWindowEnd = int("closed_at_window_end")
        heldAtEnd = int("held_at_end")
        seconds = json["seconds"]?.doubleValue ?? 0
        cpuSeconds = json["cpu_seconds"]?.doubleValue ?? 0
    }
}
