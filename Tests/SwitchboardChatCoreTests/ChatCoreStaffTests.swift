import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// Operators saying hello are written to `operators` in batches, one write
/// in flight per core, so that a console storm does not fill the readers'
/// queue that its joins need.
@Suite struct ChatCoreStaffTests {
    @Test func helloesDuringAWriteRideOnTheNextOne() {
        let harness = CoreHarness()
        _ = harness.connect(.operator, "op-1", name: "Ann")
        for index in 2...300 { _ = harness.connect(.operator, "op-\(index)") }
        _ = harness.connect(.visitor, "v-1")
        harness.settle()
        #expect(harness.database.operatorWrites == [1, 299], "the first at once, everyone else in one more")
        #expect(harness.database.operators.count == 300)
        #expect(harness.database.operators["op-1"] == "Ann")
    }

    @Test func aRefusedWriteIsTakenAlongByTheNextHello() {
        let harness = CoreHarness()
        harness.readers[0].accepting = false
        _ = harness.connect(.operator, "op-1")
        harness.readers[0].accepting = true
        _ = harness.connect(.admin, "ad-1", name: "Olga")
        harness.settle()
        #expect(harness.database.operatorWrites == [2])
        #expect(harness.database.operators.keys.sorted() == ["ad-1", "op-1"])
    }

    @Test func aBatchHoldsEachOperatorOnceWithItsLatestName() {
        var sightings = StaffSightings()
        sightings.add(workspaceID: "w", Participant(id: "op-1", role: "operator", name: "Ann"))
        sightings.add(workspaceID: "w", Participant(id: "op-1", role: "operator", name: "Anna"))
        sightings.add(workspaceID: "x", Participant(id: "op-1", role: "admin", name: nil))
        let rows = sightings.startWrite()
        #expect(rows?.map(\.staff.name) == ["Anna", nil])
        #expect(sightings.startWrite() == nil, "one write in flight")
        sightings.finishWrite()
        #expect(sightings.startWrite() == nil, "nothing waits")
        for index in 0..<(StaffSightings.batchLimit + 1) {
            sightings.add(workspaceID: "w", Participant(id: "op-\(index)", role: "operator", name: nil))
        }
        #expect(sightings.startWrite()?.count == StaffSightings.batchLimit)
        sightings.finishWrite()
        #expect(sightings.startWrite()?.count == 1)
    }
}
