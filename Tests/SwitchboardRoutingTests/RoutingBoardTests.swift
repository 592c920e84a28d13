import SwitchboardRouting
import Testing

/// A node's memory of what it told (`RoutingBoard`): a change goes out once
/// however many sources tell it, nothing goes out for a workspace nobody
/// here follows, and availability follows the last word.
@Suite struct RoutingBoardTests {
    static func ken(_ status: OperatorStatus, active: Int = 0) -> OperatorPresence {
        OperatorPresence(
            id: "ken", name: "Ken", role: "operator", status: status, connected: true, activeSessions: active,
            capacity: 2, lastAssignedAt: nil)
    }

    @Test func aChangeIsToldOnceAndOnlyWhereSomeoneFollows() {
        var board = RoutingBoard()
        let unfollowed = board.tell([Self.ken(.online)], of: "w", complete: true)
        #expect(unfollowed.isEmpty, "nobody follows w here")
        #expect(board.operatorsAvailable("w"), "a whole list still says who is available")
        let first = board.watchPresence("w")
        let second = board.watchPresence("w")
        #expect(first && !second, "the second console is not the first")
        let beforeList = board.tell([Self.ken(.online)], of: "w", complete: false)
        #expect(beforeList.isEmpty, "before the first whole list nothing was told")
        let list = board.tell([Self.ken(.online)], of: "w", complete: true)
        #expect(list.isEmpty, "the list itself says it")
        let away = board.tell([Self.ken(.away)], of: "w", complete: false)
        #expect(away == [Self.ken(.away)])
        let heardAgain = board.tell([Self.ken(.away)], of: "w", complete: false)
        #expect(heardAgain.isEmpty, "heard again: nothing new")
        let seenAgain = OperatorPresence(
            id: "ken", name: "Ken", role: "operator", status: .away, connected: true, activeSessions: 0, capacity: 2,
            lastAssignedAt: "2026-11-25T02:00:00.000Z", lastSeenAt: "2026-11-25T02:00:00.000Z")
        let unseen = board.tell([seenAgain], of: "w", complete: false)
        #expect(unseen.isEmpty, "fields presence.updated does not carry are no news")
        let busier = board.tell([Self.ken(.away, active: 1)], of: "w", complete: true)
        #expect(busier == [Self.ken(.away, active: 1)])
        #expect(!board.operatorsAvailable("w"))
        board.unwatchPresence("w")
        board.unwatchPresence("w")
        #expect(board.presenceWorkspaces.isEmpty)
        let afterwards = board.tell([Self.ken(.online)], of: "w", complete: false)
        #expect(afterwards.isEmpty)
    }

    @Test func queuePlacesAreKeptForWorkspacesWithWaitingVisitors() {
        var board = RoutingBoard()
        let unfollowed = board.tellQueue(["a", "b"], of: "w")
        #expect(!unfollowed, "no visitor here waits in w")
        #expect(board.position(of: "a", in: "w") == nil)
        let first = board.watchQueue("w")
        #expect(first && !board.knowsQueue("w"))
        let read = board.tellQueue(["a", "b"], of: "w")
        #expect(read && board.knowsQueue("w"))
        #expect(board.position(of: "b", in: "w") == 2 && board.position(of: "c", in: "w") == nil)
        let same = board.tellQueue(["a", "b"], of: "w")
        #expect(!same, "the same head: no change")
        let moved = board.tellQueue(["b"], of: "w")
        #expect(moved && board.position(of: "b", in: "w") == 1)
        board.unwatchQueue("w")
        #expect(board.queueWorkspaces.isEmpty && board.position(of: "b", in: "w") == nil)
    }

    @Test func availabilityIsTheLastWord() {
        var board = RoutingBoard()
        let first = board.setAvailable("w", true)
        let twice = board.setAvailable("w", true)
        #expect(first && !twice)
        let changed = board.replaceAvailable(["v"])
        #expect(changed == ["w", "v"])
        #expect(!board.operatorsAvailable("w") && board.operatorsAvailable("v"))
        let gone = board.setAvailable("v", false)
        #expect(gone && !board.operatorsAvailable("v"))
    }
}
