import Testing

@testable import SwitchboardWriter

/// The lanes as a word: membership, ascending order whatever the order of
/// insertion, removal without touching the original, and both ends of the
/// 64 lanes `writer.connections` allows.
@Suite struct LaneSetTests {
    @Test func holdsLanesAndGivesThemInAscendingOrder() {
        var lanes = LaneSet()
        #expect(lanes.isEmpty)
        #expect(Array(lanes) == [])
        for lane in [63, 5, 0, 5, 17] { lanes.insert(lane) }
        #expect(!lanes.isEmpty)
        #expect(Array(lanes) == [0, 5, 17, 63])
        #expect(lanes.contains(17) && !lanes.contains(16))
        #expect(lanes == [17, 0, 63, 5], "a literal in any order is the same set")
    }

    @Test func removingLeavesTheOriginalAsItWas() {
        let lanes: LaneSet = [0, 1, 2]
        #expect(Array(lanes.removing(0)) == [1, 2])
        #expect(Array(lanes.removing(7)) == [0, 1, 2], "removing a lane it lacks changes nothing")
        #expect(Array(lanes) == [0, 1, 2])
        #expect(([0] as LaneSet).removing(0).isEmpty)
        var union: LaneSet = [1]
        union.formUnion([0, 3])
        #expect(Array(union) == [0, 1, 3])
    }
}
