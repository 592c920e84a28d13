import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON
import SwitchboardReaders
import SwitchboardRouting

/// `PUT /api/v1/business-hours`'s body,
/// `{"time_zone":"Europe/Berlin","weekly":{"mon":[["09:00","17:30"]],...},"closed_dates":["2026-12-25"]}`,
/// and the answer of `GET` and `PUT`: the same members (null when the
/// workspace has none: always open) and `"open"`, `"opens_at"` now.
enum BusinessHoursBody {
    static let maxBodyBytes = 16384

    /// The body, checked (all but the zone's existence, which takes the tz database: a reader thread's job).
    static func parse(_ request: HTTPRequest) throws(ChatError) -> BusinessHours {
        let object = try JSONBody.object(
            request, maxBytes: maxBodyBytes, allowed: ["time_zone", "weekly", "closed_dates"],
            maxMembers: BusinessHours.maxClosedDates)
        guard let zone = object["time_zone"]?.stringValue else {
            throw ChatError(.badRequest, "\"time_zone\" is required: a tz database name such as Europe/Berlin")
        }
        guard let weeklyObject = object["weekly"]?.objectValue else {
            throw ChatError(.badRequest, "\"weekly\" is required: {\"mon\": [[\"09:00\", \"17:30\"]], ...}")
        }
        var weekly: [String: [[String]]] = [:]
        for (day, value) in weeklyObject.members {
            guard weekly[day] == nil else { throw ChatError(.badRequest, "\"weekly\" has \"\(day)\" twice") }
            let shape = "\"weekly.\(day)\" must be an array of [\"HH:MM\", \"HH:MM\"] intervals"
            guard let intervals = value.arrayValue else { throw ChatError(.badRequest, shape) }
            weekly[day] = try intervals.map { (interval) throws(ChatError) -> [String] in
                guard let pair = interval.arrayValue else { throw ChatError(.badRequest, shape) }
                return try pair.map { (end) throws(ChatError) -> String in
                    guard let text = end.stringValue else { throw ChatError(.badRequest, shape) }
                    return text
                }
            }
        }
        var closed: [String] = []
        if let raw = object["closed_dates"], !raw.isNull {
            guard let dates = raw.arrayValue else {
                throw ChatError(.badRequest, "\"closed_dates\" must be an array of dates such as 2026-12-25")
            }
            for date in dates {
                guard let text = date.stringValue else {
                    throw ChatError(.badRequest, "\"closed_dates\" must be an array of dates such as 2026-12-25")
                }
                closed.append(text)
            }
        }
        do {
            return try BusinessHours(timeZone: zone, weekly: weekly, closedDates: closed)
        } catch {
            throw ChatError(.badRequest, error.message)
        }
    }

    /// As stored: the checked schedule in its canonical JSON.
    static func stored(_ hours: BusinessHours, workspaceID: String) -> StoredBusinessHours {
        var writer = JSONWriter()
        weekly(hours, &writer)
        return StoredBusinessHours(
            workspaceID: workspaceID, timeZone: hours.timeZone,
            weeklyJSON: String(decoding: writer.bytes, as: UTF8.self),
            closedDates: hours.closedDates.sorted().map(\.iso))
    }

    /// A stored row back into a schedule; nil when it no longer parses (never written so by the gateway).
    static func schedule(_ stored: StoredBusinessHours) -> BusinessHours? {
        guard let value = try? JSONParser.parse(Array(stored.weeklyJSON.utf8)), let object = value.objectValue else {
            return nil
        }
        var weekly: [String: [[String]]] = [:]
        for (day, intervals) in object.members {
            weekly[day] = (intervals.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap(\.stringValue) }
        }
        return try? BusinessHours(timeZone: stored.timeZone, weekly: weekly, closedDates: stored.closedDates)
    }

    static func encode(_ hours: BusinessHours?, state: OpeningState) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("time_zone")
        if let hours { writer.string(hours.timeZone) } else { writer.null() }
        writer.key("weekly")
        if let hours { weekly(hours, &writer) } else { writer.null() }
        writer.key("closed_dates")
        writer.beginArray()
        for date in (hours?.closedDates ?? []).sorted() { writer.string(date.iso) }
        writer.endArray()
        writer.key("open")
        writer.bool(state.open)
        writer.key("opens_at")
        if let opensAt = state.opensAt { writer.string(opensAt) } else { writer.null() }
        writer.endObject()
        return writer.bytes
    }

    /// `{"mon":[["09:00","17:30"]],...}`: every day, Monday first, `[]` when closed.
    private static func weekly(_ hours: BusinessHours, _ writer: inout JSONWriter) {
        writer.beginObject()
        for (index, day) in BusinessHours.weekdayNames.enumerated() {
            writer.key(day)
            writer.beginArray()
            for interval in hours.weekly[index] {
                writer.beginArray()
                writer.string(BusinessHours.text(interval.start))
                writer.string(BusinessHours.text(interval.end))
                writer.endArray()
            }
            writer.endArray()
        }
        writer.endObject()
    }
}
