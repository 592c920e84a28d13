import SwitchboardJSON

/// What one `loadtest uploader` run did: uploads by answer, bytes stored,
/// and the upload times. Printed as one JSON line and read back by
/// `loadtest bench-attachments`.
struct UploadCounts: Equatable, Sendable {
    var uploads = 0
    var created = 0
    var refused503 = 0
    var refused429 = 0
    var other = 0
    var failed = 0
    /// Uploads reset as an A window began (`--alternate`).
    var cut = 0
    var bytesStored = 0
    var seconds = 0.0
    var p50Ms = Double.nan
    var p99Ms = Double.nan
    /// The first answer that was neither 201, 429 nor 503, to say why.
    var firstOther = ""

    var uploadsPerSecond: Double { seconds > 0 ? Double(created) / seconds : .nan }
    var megabytesPerSecond: Double { seconds > 0 ? Double(bytesStored) / seconds / 1_000_000 : .nan }

    var json: JSONValue {
        var object = JSONObject()
        object["uploads"] = .int(uploads)
        object["created"] = .int(created)
        object["refused_503"] = .int(refused503)
        object["refused_429"] = .int(refused429)
        object["other"] = .int(other)
        object["failed"] = .int(failed)
        object["cut"] = .int(cut)
        object["bytes_stored"] = .int(bytesStored)
        object["seconds"] = .double(PythonFormat.round(seconds, 3))
        object["p50_ms"] = .optional(p50Ms.isNaN ? nil : PythonFormat.round(p50Ms, 2))
        object["p99_ms"] = .optional(p99Ms.isNaN ? nil : PythonFormat.round(p99Ms, 2))
        object["first_other"] = .string(firstOther)
        return .object(object)
    }
}

extension UploadCounts {
    /// The counts a JSON line holds (missing members count 0).
    init(json: JSONValue) {
        func int(_ key: String) -> Int { PythonFormat.int(json[key]) ?? 0 }
        uploads = int("uploads")
        created = int("created")
        refused503 = int("refused_503")
        refused429 = int("refused_429")
        other = int("other")
        failed = int("failed")
        cut = int("cut")
        bytesStored = int("bytes_stored")
        seconds = json["seconds"]?.doubleValue ?? 0
        p50Ms = json["p50_ms"]?.doubleValue ?? .nan
        p99Ms = json["p99_ms"]?.doubleValue ?? .nan
        firstOther = json["first_other"]?.stringValue ?? ""
    }
}
