import SwitchboardChat
import Testing

@testable import SwitchboardServer

/// A loop's cache of session summaries for the inbox.
@Suite struct SessionDirectoryTests {
    private func session(_ id: String, lastSeq: Int64 = 0, status: SessionStatus = .open) -> SessionInfo {
        SessionInfo(
            id: id, workspaceID: "w", visitorID: "v", title: "t", status: status, assignedOperator: nil,
            lastSeq: lastSeq, lastMessage: nil, createdAt: "2026-11-23T08:00:00.000Z",
            updatedAt: "2026-11-23T08:00:00.000Z")
    }

    private func message(_ sessionID: String, seq: Int64, body: String) -> ChatMessage {
        ChatMessage(
            id: "m\(seq)", sessionID: sessionID, seq: seq, clientMessageID: "c\(seq)", kind: "text", body: body,
            sender: Participant(id: "v", role: "visitor", name: nil), createdAt: "2026-11-23T08:00:0\(seq).000Z")
    }

    @Test func messagesMoveTheSummaryForwardOnly() {
        var directory = SessionDirectory()
        #expect(directory.apply(message("a", seq: 1, body: "unknown")) == nil)
        directory.remember(session("a"))
        #expect(directory.apply(message("a", seq: 2, body: "two"))?.lastMessage?.body == "two")
        #expect(directory.apply(message("a", seq: 1, body: "late"))?.lastMessage?.body == "two")
        #expect(directory["a"]?.lastSeq == 2)
    }

    @Test func aSummaryReadBeforeAnAppliedMessageKeepsTheMessage() {
        var directory = SessionDirectory()
        directory.remember(session("a"))
        _ = directory.apply(message("a", seq: 3, body: "newest"))
        directory.remember(session("a", lastSeq: 1, status: .assigned))
        #expect(directory["a"]?.status == .assigned, "the change is kept")
        #expect(directory["a"]?.lastSeq == 3 && directory["a"]?.lastMessage?.body == "newest")
    }

    @Test func aFullDirectoryForgetsHalfAndStaysBounded() {
        var directory = SessionDirectory(capacity: 10)
        for index in 0..<25 { directory.remember(session("s\(index)")) }
        let known = (0..<25).filter { directory["s\($0)"] != nil }.count
        #expect(known <= 10 && known >= 5)
        #expect(directory["s24"] != nil, "the newest is always kept")
    }
}
