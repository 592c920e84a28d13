import Foundation
import SwitchboardAuth
import Testing

@testable import SwitchboardServer

/// `GET/PUT /api/v1/business-hours` in-process against a real PostgreSQL,
/// and what a waiting visitor is told (`availability` `open`, `opens_at`).
@Suite(.serialized) struct BusinessHoursAPITests {
    private func token(_ fixture: ChatFixture, _ role: Role, _ sub: String = "ad-ada") -> String {
        TestTokens.make(role: role, workspace: fixture.workspace, sub: sub, name: sub)
    }

    private func put(_ fixture: ChatFixture, _ body: String, as role: Role = .admin) throws -> HTTPReply {
        try HTTPTestClient.request(
            fixture.gateway, "PUT", "/api/v1/business-hours", token: token(fixture, role), body: body)
    }

    /// Today and tomorrow (UTC), `YYYY-MM-DD`, and the start of the day after, RFC 3339.
    private func closedDays() -> (dates: [String], reopens: String) {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let now = Date()
        let dates = [now, now.addingTimeInterval(86400)].map { formatter.string(from: $0) }
        return (dates, formatter.string(from: now.addingTimeInterval(2 * 86400)) + "T00:00:00Z")
    }

    @Test func noScheduleIsAlwaysOpenAndAPutIsReadBackNormalized() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let none = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/business-hours", token: token(fixture, .operator, "op-ken"))
        #expect(none.status == 200)
        #expect(none.json["time_zone"] is NSNull && none.json["weekly"] is NSNull)
        #expect(none.json["open"] as? Bool == true && none.json["opens_at"] is NSNull)

        let body = #"""
            {"time_zone":"Europe/Berlin","weekly":{"tue":[["09:00","12:00"],["13:00","17:30"]],"mon":[["09:00","17:30"]]},
             "closed_dates":["2026-12-25","2026-12-24"]}
            """#
        let stored = try put(fixture, body)
        #expect(stored.status == 200, "\(stored.errorMessage)")
        let read = try HTTPTestClient.request(
            fixture.gateway, "GET", "/api/v1/business-hours", token: token(fixture, .operator, "op-ken"))
        #expect(read.json["time_zone"] as? String == "Europe/Berlin")
        let weekly = read.json["weekly"] as? [String: [[String]]]
        #expect(weekly?["mon"] == [["09:00", "17:30"]])
        #expect(weekly?["tue"] == [["09:00", "12:00"], ["13:00", "17:30"]])
        #expect(weekly?["sun"] == [])
        #expect(read.json["closed_dates"] as? [String] == ["2026-12-24", "2026-12-25"])
        #expect(read.json["open"] is Bool)
        #expect(
            try fixture.count("SELECT count(*) FROM business_hours WHERE workspace_id = $1::uuid", [fixture.workspace])
                == 1)
    }

    @Test func onlyAdminsPutAndOnlySchedulesAreTaken() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let valid = #"{"time_zone":"UTC","weekly":{}}"#
        #expect(try put(fixture, valid, as: .operator).status == 403)
        #expect(try put(fixture, valid, as: .visitor).status == 403)
        #expect(try put(fixture, valid).status == 200)
        for bad in [
            #"{"time_zone":"Mars/Olympus_Mons","weekly":{}}"#,
            #"{"time_zone":"../../etc/passwd","weekly":{}}"#,
            #"{"weekly":{}}"#,
            #"{"time_zone":"UTC"}"#,
            #"{"time_zone":"UTC","weekly":{"mon":[["09:00","12:00"],["11:00","13:00"]]}}"#,
            #"{"time_zone":"UTC","weekly":{"mon":[["17:00","09:00"]]}}"#,
            #"{"time_zone":"UTC","weekly":{"mon":[["9:00","12:00"]]}}"#,
            #"{"time_zone":"UTC","weekly":{"funday":[]}}"#,
            #"{"time_zone":"UTC","weekly":{"mon":"09:00-17:00"}}"#,
            #"{"time_zone":"UTC","weekly":{},"closed_dates":["2026-02-30"]}"#,
            #"{"time_zone":"UTC","weekly":{},"closed_dates":"2026-12-25"}"#,
            #"{"time_zone":"UTC","weekly":{},"holidays":[]}"#,
        ] {
            let reply = try put(fixture, bad)
            #expect(reply.status == 400, "\(bad): \(reply.status)")
        }
    }

    @Test func aWaitingVisitorIsToldWhenItOpens() throws {
        let fixture = try ChatFixture()
        defer { fixture.stop() }
        let (dates, reopens) = closedDays()
        let allDay = #"[["00:00","24:00"]]"#
        let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { "\"\($0)\":\(allDay)" }.joined(
            separator: ",")
        let closed = try put(
            fixture,
            #"{"time_zone":"Etc/UTC","weekly":{\#(days)},"closed_dates":["\#(dates[0])","\#(dates[1])"]}"#)
        #expect(closed.json["open"] as? Bool == false)
        #expect(closed.json["opens_at"] as? String == reopens)

        let visitor = try fixture.client(.visitor, "v-1")
        _ = try fixture.createSession(visitor)
        let told = try visitor.next("availability")
        #expect(told["open"] as? Bool == false)
        #expect(told["opens_at"] as? String == reopens)

        #expect(try put(fixture, #"{"time_zone":"Etc/UTC","weekly":{\#(days)}}"#).json["open"] as? Bool == true)
        let reopened = try visitor.next("availability")
        #expect(reopened["open"] as? Bool != false && reopened["opens_at"] == nil)
    }
}
