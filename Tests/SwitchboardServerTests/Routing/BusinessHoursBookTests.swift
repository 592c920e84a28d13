import Foundation
import SwitchboardReaders
import SwitchboardRouting
import SwitchboardTestSupport
import Synchronization
import Testing

@testable import SwitchboardServer

/// The schedules a node keeps for `availability`: another node's `PUT`
/// shows after a re-read, and this node's own write wins over a read that
/// was under way when it came.
@Suite(.serialized) struct BusinessHoursBookTests {
    /// Jobs held until the test runs them, on its own thread, with its own queries.
    final class HeldJobs: Sendable {
        let jobs = Mutex<[@Sendable (ChatQueries) -> Void]>([])
        func submit(_ job: @escaping @Sendable (ChatQueries) -> Void) -> Bool {
            jobs.withLock { $0.append(job) }
            return true
        }
        func runAll(_ queries: ChatQueries) {
            for job in jobs.withLock({ jobs in
                defer { jobs = [] }; return jobs
            }) { job(queries) }
        }
    }

    static let closedAlways = #"{"mon":[],"tue":[],"wed":[],"thu":[],"fri":[],"sat":[],"sun":[]}"#
    static let openAlways =
        #"{"mon":[["00:00","24:00"]],"tue":[["00:00","24:00"]],"wed":[["00:00","24:00"]],"thu":[["00:00","24:00"]],"#
        + #""fri":[["00:00","24:00"]],"sat":[["00:00","24:00"]],"sun":[["00:00","24:00"]]}"#

    @Test func anotherNodesWriteShowsAfterARereadAndOurOwnWinsOverAReadUnderWay() throws {
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let queries = ChatQueries(databaseURL: database.url)
        let workspace = UUID().uuidString.lowercased()
        let held = HeldJobs()
        let book = BusinessHoursBook(zones: ZoneCatalog(), refreshSeconds: 1) { held.submit($0) }
        let now = Int64(Date().timeIntervalSince1970)

        book.loadNow()
        held.runAll(queries)
        #expect(book.state(of: workspace, atUnixSeconds: now) == .open, "no schedule: always open")

        // Another node stores a schedule that is never open.
        try queries.setBusinessHours(
            StoredBusinessHours(
                workspaceID: workspace, timeZone: "Europe/Berlin", weeklyJSON: Self.closedAlways, closedDates: []))
        #expect(book.state(of: workspace, atUnixSeconds: now) == .open, "the copy is fresh: nothing read yet")
        #expect(held.jobs.withLock { $0.isEmpty })
        #expect(book.state(of: workspace, atUnixSeconds: now + 2) == .open, "stale: the answer is the copy's")
        held.runAll(queries)
        #expect(book.state(of: workspace, atUnixSeconds: now + 2) == OpeningState(open: false, opensAt: nil))

        // A read starts; then this node's PUT (always open) replaces the entry; the read, which saw the
        // table before the PUT's row, must not bring the old schedule back.
        _ = book.state(of: workspace, atUnixSeconds: now + 4)
        let hours = try BusinessHours(
            timeZone: "Europe/Berlin",
            weekly: Dictionary(uniqueKeysWithValues: BusinessHours.weekdayNames.map { ($0, [["00:00", "24:00"]]) }),
            closedDates: [])
        let zone = try #require(book.zones.rules("Europe/Berlin"))
        book.replace(workspace, with: BusinessHoursBook.Entry(hours: hours, zone: zone))
        held.runAll(queries)
        #expect(book.state(of: workspace, atUnixSeconds: now + 4) == .open)
    }

    @Test func opensAtIsRFC3339InUTC() {
        #expect(BusinessHoursBook.rfc3339(0) == "1970-01-01T00:00:00Z")
        #expect(BusinessHoursBook.rfc3339(1_774_832_400) == "2026-03-30T01:00:00Z")
        #expect(BusinessHoursBook.rfc3339(-1) == "1969-12-31T23:59:59Z")
    }
}
