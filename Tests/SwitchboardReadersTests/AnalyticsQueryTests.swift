import Foundation
import SwitchboardChat
import SwitchboardPostgres
import SwitchboardReaders
import Testing

@Suite struct AnalyticsQueryTests {
    static let from = "2026-03-01T00:00:00Z"
    static let to = "2026-03-02T00:00:00Z"

    /// A session with its messages (role and created_at each, stored through the
    /// writer's function, then dated), then its own times set by hand: the first
    /// visitor message at `visitorAt`, the first operator reply `replyAfter`
    /// seconds later (nil: none), and closed_at.
    private func session(
        _ fixture: ReadersFixture, workspace: String, createdAt: String, visitorAt: String?, replyAfter: Double?,
        closedAt: String? = nil, messages: [(role: String, at: String)]
    ) throws -> String {
        let id = try fixture.queries.createSession(workspaceID: workspace, visitorID: "v-1", title: nil).id
        for message in messages {
            let seq = try fixture.append(
                session: id, role: message.role, senderID: message.role == "visitor" ? "v-1" : "op-1", body: "m")
            try fixture.admin.query(
                "UPDATE chats SET created_at = $3::timestamptz WHERE session_id = $1::uuid AND seq = $2::bigint",
                [id, String(seq), message.at])
        }
        try fixture.admin.query(
            """
            UPDATE chat_sessions
               SET created_at = $2::timestamptz, first_visitor_message_at = $3::timestamptz,
                   first_operator_reply_at = $3::timestamptz + $4::float8 * interval '1 second',
                   closed_at = $5::timestamptz, status = CASE WHEN $5::timestamptz IS NULL THEN status ELSE 'closed' END
             WHERE id = $1::uuid
            """, [id, createdAt, visitorAt, replyAfter.map { String($0) }, closedAt])
        return id
    }

    /// Window [2026-03-01, 2026-03-02). Workspace A:
    ///
    /// | session | created    | reply after | closed_at        | messages in window     |
    /// | a1      | 01:00      | 10 s        | 03-01 05:00 (in) | visitor, operator      |
    /// | a2      | 02:00      | 20 s        | -                | visitor, admin         |
    /// | a3      | 03:00      | 30 s        | 03-02 00:00 (out: `to` is exclusive) | visitor, operator |
    /// | a4      | 04:00      | 40 s        | -                | visitor, operator, visitor |
    /// | a5      | 23:59:59   | 100 s       | -                | visitor (the reply, 03-02 00:01:39, is out) |
    /// | a6      | 10:00      | none        | -                | visitor                |
    /// | a7      | 02-28 23:00 (out) | 5 s  | 03-01 00:00 (in: `from` is inclusive) | operator (its visitor message is out) |
    /// | a8      | deleted: 06:00, 1 s, closed 07:00, visitor + operator: counts nowhere |
    ///
    /// Workspace B (b1: 08:00, 3 s, closed 09:00, visitor + operator) counts only for B.
    private func arrange(_ fixture: ReadersFixture) throws -> String {
        let a = fixture.workspaceID
        let b = UUID().uuidString.lowercased()
        func day(_ time: String) -> String { "2026-03-01T\(time)Z" }
        _ = try session(
            fixture, workspace: a, createdAt: day("01:00:00"), visitorAt: day("01:00:00"), replyAfter: 10,
            closedAt: day("05:00:00"), messages: [("visitor", day("01:00:00")), ("operator", day("01:00:10"))])
        _ = try session(
            fixture, workspace: a, createdAt: day("02:00:00"), visitorAt: day("02:00:00"), replyAfter: 20,
            messages: [("visitor", day("02:00:00")), ("admin", day("02:00:20"))])
        _ = try session(
            fixture, workspace: a, createdAt: day("03:00:00"), visitorAt: day("03:00:00"), replyAfter: 30,
            closedAt: Self.to, messages: [("visitor", day("03:00:00")), ("operator", day("03:00:30"))])
        _ = try session(
            fixture, workspace: a, createdAt: day("04:00:00"), visitorAt: day("04:00:01"), replyAfter: 40,
            messages: [("visitor", day("04:00:01")), ("operator", day("04:00:41")), ("visitor", day("04:01:00"))])
        _ = try session(
            fixture, workspace: a, createdAt: day("23:59:59"), visitorAt: day("23:59:59"), replyAfter: 100,
            messages: [("visitor", day("23:59:59")), ("operator", "2026-03-02T00:01:39Z")])
        _ = try session(
            fixture, workspace: a, createdAt: day("10:00:00"), visitorAt: day("10:00:00"), replyAfter: nil,
            messages: [("visitor", day("10:00:00"))])
        _ = try session(
            fixture, workspace: a, createdAt: "2026-02-28T23:00:00Z", visitorAt: "2026-02-28T23:00:00Z", replyAfter: 5,
            closedAt: day("00:00:00"),
            messages: [("visitor", "2026-02-28T23:00:00Z"), ("operator", day("00:30:00"))])
        let deleted = try session(
            fixture, workspace: a, createdAt: day("06:00:00"), visitorAt: day("06:00:00"), replyAfter: 1,
            closedAt: day("07:00:00"), messages: [("visitor", day("06:00:00")), ("operator", day("06:00:01"))])
        try fixture.softDelete(session: deleted)
        _ = try session(
            fixture, workspace: b, createdAt: day("08:00:00"), visitorAt: day("08:00:00"), replyAfter: 3,
            closedAt: day("09:00:00"), messages: [("visitor", day("08:00:00")), ("operator", day("08:00:03"))])
        return b
    }

    @Test func figuresOverTheWindow() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let other = try arrange(fixture)

        // Response times 10, 20, 30, 40, 100 s. percentile_cont(p) reads position p * (n - 1) of the sorted
        // values, interpolating: median at 0.5 * 4 = 2 -> 30; p90 at 0.9 * 4 = 3.6 -> 40 + 0.6 * (100 - 40) = 76.
        let figures = try fixture.queries.analytics(workspaceID: fixture.workspaceID, from: Self.from, to: Self.to)
        #expect(
            figures
                == Analytics(
                    sessionsOpened: 6, sessionsClosed: 2, messagesByRole: ["visitor": 7, "operator": 4, "admin": 1],
                    firstResponseCount: 5, firstResponseMedianSeconds: 30, firstResponseP90Seconds: 76))

        let b = try fixture.queries.analytics(workspaceID: other, from: Self.from, to: Self.to)
        #expect(
            b
                == Analytics(
                    sessionsOpened: 1, sessionsClosed: 1, messagesByRole: ["visitor": 1, "operator": 1],
                    firstResponseCount: 1, firstResponseMedianSeconds: 3, firstResponseP90Seconds: 3))

        // Other offsets name the same instants.
        let shifted = try fixture.queries.analytics(
            workspaceID: fixture.workspaceID, from: "2026-03-01T02:00:00+02:00", to: "2026-03-02T02:00:00+02:00")
        #expect(shifted == figures)
    }

    /// Waits run from the first visitor message to the first assignment (`first_assigned_at`), never from
    /// `waiting_since`, which a reopen moves past the first assignment; unanswered sessions are those closed
    /// in the window after a visitor wrote and before any operator did.
    @Test func waitsAndUnanswered() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let a = fixture.workspaceID
        func day(_ time: String) -> String { "2026-03-01T\(time)Z" }
        func assign(_ id: String, at: String?, waitingSince: String? = nil) throws {
            try fixture.admin.query(
                """
                UPDATE chat_sessions SET first_assigned_at = $2::timestamptz,
                       waiting_since = coalesce($3::timestamptz, waiting_since)
                 WHERE id = $1::uuid
                """, [id, at, waitingSince])
        }
        let waited10 = try session(
            fixture, workspace: a, createdAt: day("01:00:00"), visitorAt: day("01:00:00"), replyAfter: 20,
            messages: [("visitor", day("01:00:00"))])
        try assign(waited10, at: day("01:00:10"))
        let waited30Unanswered = try session(
            fixture, workspace: a, createdAt: day("02:00:00"), visitorAt: day("02:00:00"), replyAfter: nil,
            closedAt: day("03:00:00"), messages: [("visitor", day("02:00:00"))])
        try assign(waited30Unanswered, at: day("02:00:30"))
        let assignedBeforeItWrote = try session(
            fixture, workspace: a, createdAt: day("04:00:00"), visitorAt: day("04:00:05"), replyAfter: 1,
            messages: [("visitor", day("04:00:05"))])
        try assign(assignedBeforeItWrote, at: day("04:00:00"))
        _ = try session(
            fixture, workspace: a, createdAt: day("05:00:00"), visitorAt: day("05:00:00"), replyAfter: nil,
            closedAt: day("06:00:00"), messages: [("visitor", day("05:00:00"))])
        _ = try session(
            fixture, workspace: a, createdAt: day("07:00:00"), visitorAt: nil, replyAfter: nil,
            closedAt: day("08:00:00"), messages: [])
        let reopened = try session(
            fixture, workspace: a, createdAt: day("09:00:00"), visitorAt: day("09:00:00"), replyAfter: 60,
            messages: [("visitor", day("09:00:00"))])
        try assign(reopened, at: day("09:00:50"), waitingSince: day("10:00:00"))

        // Waits 0, 10, 30, 50 s: median at 1.5 -> 20; p90 at 2.7 -> 30 + 0.7 * 20 = 44.
        let figures = try fixture.queries.analytics(workspaceID: a, from: Self.from, to: Self.to)
        #expect(figures.waitCount == 4)
        #expect(figures.waitMedianSeconds == 20)
        #expect(abs((figures.waitP90Seconds ?? 0) - 44) < 1e-9)
        #expect(figures.unanswered == 2, "the two closed after a visitor wrote, not the silent one")
        let empty = try fixture.queries.analytics(workspaceID: a, from: "2025-01-01T00:00:00Z", to: Self.from)
        #expect(empty.waitCount == 0 && empty.waitMedianSeconds == nil && empty.unanswered == 0)
    }

    @Test func emptyWindowHasNoMedian() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        _ = try arrange(fixture)
        let empty = Analytics(
            sessionsOpened: 0, sessionsClosed: 0, messagesByRole: [:], firstResponseCount: 0,
            firstResponseMedianSeconds: nil, firstResponseP90Seconds: nil)
        #expect(
            try fixture.queries.analytics(
                workspaceID: fixture.workspaceID, from: "2025-01-01T00:00:00Z", to: "2025-02-01T00:00:00Z") == empty)
        #expect(
            try fixture.queries.analytics(
                workspaceID: UUID().uuidString.lowercased(), from: Self.from, to: Self.to) == empty)
        // A window that ends before it starts holds nothing.
        #expect(try fixture.queries.analytics(workspaceID: fixture.workspaceID, from: Self.to, to: Self.from) == empty)
    }

    @Test(arguments: ["", "yesterday-ish", "2026-13-01T00:00:00Z", "2026-03-01T25:00:00Z", "'; DROP TABLE chats; --"])
    func invalidTimestampsFail(text: String) throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        for (from, to) in [(text, Self.to), (Self.from, text)] {
            let result = capture { () throws(QueryError) in
                try fixture.queries.analytics(workspaceID: fixture.workspaceID, from: from, to: to)
            }
            guard case .failure(.failed) = result else {
                Issue.record("\(from) - \(to) gave \(result)")
                continue
            }
        }
        // The connection survives a refused query.
        #expect(
            try fixture.queries.analytics(workspaceID: fixture.workspaceID, from: Self.from, to: Self.to).sessionsOpened
                == 0)
    }
}
