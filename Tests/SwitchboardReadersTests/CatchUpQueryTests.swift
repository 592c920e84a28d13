import SwitchboardReaders
import Testing

/// `catchUp`: many sessions' states and missing messages in one statement.
@Suite struct CatchUpQueryTests {
    @Test func eachSessionGetsItsMessagesAfterItsSeqAndHowFarTheDatabaseIsKnown() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let busy = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil).id
        let quiet = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil).id
        for index in 1...5 { try fixture.append(session: busy, body: "m\(index)") }
        try fixture.append(session: quiet, body: "only")
        let missing = "00000000-0000-4000-8000-00000000dead"

        let answers = try fixture.queries.catchUp(
            [
                CatchUpRequest(sessionID: busy, after: 2, announce: false),
                CatchUpRequest(sessionID: quiet, after: 1, announce: true),
                CatchUpRequest(sessionID: missing, after: 0, announce: false),
                CatchUpRequest(sessionID: quiet, after: nil, announce: true),
            ], limit: 10)
        #expect(answers.map(\.request.sessionID) == [busy, quiet, missing, quiet])
        #expect(answers[0].messages.map(\.body) == ["m3", "m4", "m5"] && answers[0].through == 5)
        #expect(answers[0].session?.lastSeq == 5 && answers[0].session?.lastMessage?.body == "m5")
        #expect(answers[1].messages.isEmpty && answers[1].through == 1 && answers[1].session?.id == quiet)
        #expect(answers[2].session == nil && answers[2].messages.isEmpty && answers[2].through == 0)
        #expect(answers[3].messages.isEmpty && answers[3].session?.lastSeq == 1)
    }

    @Test func aReadCutByTheLimitIsKnownOnlyAsFarAsItRead() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let session = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil)
        for index in 1...7 { try fixture.append(session: session.id, body: "m\(index)") }
        let answer = try fixture.queries.catchUp(
            [CatchUpRequest(sessionID: session.id, after: 1, announce: false)], limit: 3)
        #expect(answer[0].messages.map(\.seq) == [2, 3, 4] && answer[0].through == 4)
    }

    @Test func lastSeqsNamesEachLiveSessionOnly() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        let one = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-1", title: nil).id
        let gone = try fixture.queries.createSession(workspaceID: fixture.workspaceID, visitorID: "v-2", title: nil).id
        for index in 1...3 { try fixture.append(session: one, body: "m\(index)") }
        try fixture.softDelete(session: gone)
        let seqs = try fixture.queries.lastSeqs(sessionIDs: [one, gone, "00000000-0000-4000-8000-00000000dead"])
        #expect(seqs == [one: 3])
        #expect(try fixture.queries.lastSeqs(sessionIDs: []).isEmpty)
    }
}
