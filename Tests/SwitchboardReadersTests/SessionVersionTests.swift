import Foundation
import SwitchboardChat
import SwitchboardReaders
import Testing

/// Every change of a session grows its version (migration 7): the writer's
/// batches and each reader write alike, so a newer state always says so.
@Suite struct SessionVersionTests {
    @Test func everyChangeGrowsTheVersionByOne() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let created = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        #expect(created.version == 1 && !created.deleted)
        try fixture.append(session: created.id, body: "hello")
        #expect(try fixture.queries.session(id: created.id)?.version == 2, "a batch storing messages")
        let assigned = try #require(
            try fixture.queries.assign(sessionID: created.id, operatorID: "op-1", operatorName: nil))
        #expect(assigned.version == 3)
        let closed = try #require(try fixture.queries.close(sessionID: created.id))
        #expect(closed.version == 4)
        #expect(try fixture.queries.close(sessionID: created.id)?.version == 4, "closing again changes nothing")
        let renamed = try #require(try fixture.queries.update(sessionID: created.id, title: "Renamed"))
        #expect(renamed.version == 5)
        let deleted = try #require(try fixture.queries.softDeleteSession(sessionID: created.id))
        #expect(deleted.version == 6 && deleted.deleted)
        #expect(try fixture.queries.session(id: created.id) == nil, "a deleted session is not found")
    }
}
