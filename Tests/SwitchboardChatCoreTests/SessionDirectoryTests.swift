import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// A loop's newest-known session states: nothing older is told after something newer.
@Suite struct SessionDirectoryTests {
    private func session(_ id: String, version: Int64, status: SessionStatus = .open) -> SessionInfo {
        SessionInfo(
            id: id, workspaceID: "w", visitorID: "v", title: "t", status: status, assignedOperator: nil,
            lastSeq: 0, lastMessage: nil, createdAt: "2026-11-23T08:00:00.000Z",
            updatedAt: "2026-11-23T08:00:00.000Z", version: version)
    }

    @Test func anOlderVersionIsRefusedAndTheSameOrNewerKept() {
        var directory = SessionDirectory()
        let r1 = directory.remember(session("a", version: 5, status: .assigned))
        #expect(r1)
        let r2 = directory.remember(session("a", version: 4, status: .open))
        #expect(!r2, "older than what was told")
        #expect(directory["a"]?.status == .assigned)
        let r3 = directory.remember(session("a", version: 5, status: .assigned))
        #expect(r3, "the same state again is fine")
        let r4 = directory.remember(session("a", version: 6, status: .closed))
        #expect(r4)
        #expect(directory["a"]?.status == .closed)
    }

    /// The same state reaching a loop twice (the event, and an inbox page
    /// re-read after a bus reconnection that raced it) is told once; a
    /// state only remembered (for a reply) is still told when its event comes.
    @Test func aStateIsToldOnceHoweverOftenItArrives() {
        var directory = SessionDirectory()
        var told: [Bool] = []
        told.append(directory.tell(session("a", version: 3)))
        told.append(directory.tell(session("a", version: 3)))  // the same state again: told already
        told.append(directory.tell(session("a", version: 2)))  // older
        told.append(directory.remember(session("a", version: 3)))  // remembered again: changes nothing
        told.append(directory.tell(session("a", version: 3)))
        told.append(directory.tell(session("a", version: 4, status: .closed)))
        #expect(told == [true, false, false, true, false, true])
        #expect(directory["a"]?.status == .closed)

        // A reply remembered version 1 of "b" without telling it: its event still goes out, once;
        // a newer state only remembered is told when its event arrives.
        _ = directory.freshest(session("b", version: 1))
        var toldB: [Bool] = []
        toldB.append(directory.tell(session("b", version: 1)))
        toldB.append(directory.tell(session("b", version: 1)))
        toldB.append(directory.remember(session("b", version: 2)))
        toldB.append(directory.tell(session("b", version: 2)))
        #expect(toldB == [true, false, true, true])
    }

    @Test func freshestAnswersWithTheNewerStateKnown() {
        var directory = SessionDirectory()
        directory.remember(session("a", version: 7, status: .closed))
        let r5 = directory.freshest(session("a", version: 6, status: .assigned))
        #expect(r5.status == .closed)
        let r6 = directory.freshest(session("a", version: 8, status: .open))
        #expect(r6.status == .open)
        let r7 = directory.freshest(session("b", version: 1))
        #expect(r7.version == 1, "unknown: as given, and remembered")
        #expect(directory["b"] != nil)
    }

    @Test func aFullDirectoryForgetsHalfAndStaysBounded() {
        var directory = SessionDirectory(capacity: 10)
        for index in 0..<25 { directory.remember(session("s\(index)", version: 1)) }
        let known = (0..<25).filter { directory["s\($0)"] != nil }.count
        #expect(known <= 10 && known >= 5)
        #expect(directory["s24"] != nil, "the newest is always kept")
    }
}
