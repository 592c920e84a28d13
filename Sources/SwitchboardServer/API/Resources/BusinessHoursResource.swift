import SwitchboardAuth
import SwitchboardChat
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardRouting
import SwitchboardSystem

/// `GET /api/v1/business-hours` (operators and admins: a console shows
/// them) and `PUT` (admins): the workspace's opening hours, with whether it
/// is open now and when it next opens. No schedule: always open.
enum BusinessHoursResource {
    static let routes = [
        APIRoute(method: .get, pattern: "/api/v1/business-hours", label: .businessHours, respond: show),
        APIRoute(method: .put, pattern: "/api/v1/business-hours", label: .businessHoursPut, respond: replace),
    ]

    static func show(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        let workspace = request.identity.workspaceID
        let book = request.chat.businessHours
        return .later { queries in
            respond {
                () throws(QueryError) in
                guard let stored = try queries.businessHours(workspaceID: workspace),
                    let hours = BusinessHoursBody.schedule(stored), let zone = book.zones.rules(hours.timeZone)
                else { return .apiJSON(.ok, BusinessHoursBody.encode(nil, state: .open)) }
                let entry = BusinessHoursBook.Entry(hours: hours, zone: zone)
                let state = BusinessHoursBook.opening(entry, at: UnixClock.nowSeconds())
                return .apiJSON(.ok, BusinessHoursBody.encode(hours, state: state))
            }
        }
    }

    static func replace(_ request: APIRequest) throws(ChatError) -> HTTPAnswer {
        guard request.identity.role == .admin else {
            throw ChatError(.forbidden, "only an admin may set the business hours")
        }
        let hours = try BusinessHoursBody.parse(request.http)
        let workspace = request.identity.workspaceID
        let book = request.chat.businessHours
        let cores = request.chat.cores
        return .later { queries in
            respond {
                () throws(QueryError) in
                // The tz database is read here, on a reader thread, never on the loop.
                guard let zone = book.zones.rules(hours.timeZone) else {
                    return .api(
                        ChatError(.badRequest, "\"time_zone\" \"\(hours.timeZone)\" is not in the tz database"))
                }
                try queries.setBusinessHours(BusinessHoursBody.stored(hours, workspaceID: workspace))
                let entry = BusinessHoursBook.Entry(hours: hours, zone: zone)
                book.replace(workspace, with: entry)
                // This node's waiting visitors hear of it now; other nodes' at their next read and beat.
                cores.everyCore(fromDatabaseThread: { $0.routingChanged(workspace, presence: [], availability: true) })
                let state = BusinessHoursBook.opening(entry, at: UnixClock.nowSeconds())
                return .apiJSON(.ok, BusinessHoursBody.encode(hours, state: state))
            }
        }
    }
}
