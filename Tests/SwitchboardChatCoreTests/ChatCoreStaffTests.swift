import SwitchboardChat
import SwitchboardReaders
import Testing

@testable import SwitchboardChatCore

/// Operators saying hello are written to `operators` in batches, a few writes
/// in flight per core, so that a console storm does not fill the readers'
/// queue that its joins need.
@Suite struct ChatCoreStaffTests {
    @Test func helloesDuringAWriteRideOnTheNextOne() {
        let harness = CoreHarness()
        _ = harness.connect(.operator, "op-1", name: "Ann")
        for index in 2...300 { _ = harness.connect(.operator, "op-\(index)") }
        _ = harness.connect(.visitor, "v-1")
        harness.settle()
        let atOnce = Array(repeating: 1, count: StaffSightings.maxWrites)
        #expect(
            harness.database.operatorWrites == atOnce + [300 - StaffSightings.maxWrites],
            "the first few at once, everyone else in one more")
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

    @Test func aConnectionGoneBeforeItsWriteIsSkipped() {
        let harness = CoreHarness()
        for index in 1...StaffSightings.maxWrites { _ = harness.connect(.operator, "op-\(index)") }
        let brief = harness.connect(.operator, "op-brief")
        brief.close()
        _ = harness.connect(.operator, "op-last")
        harness.settle()
        #expect(harness.database.operators["op-brief"] == nil, "recorded at its next hello")
        #expect(harness.database.operators["op-last"] != nil)
        #expect(harness.database.operators.count == StaffSightings.maxWrites + 1)
    }

    @Test func aBatchHoldsEachOperatorOnceWithItsLatestName() {
        let names: [UInt64: Participant] = [
            1: Participant(id: "op-1", role: "operator", name: "Ann"),
            2: Participant(id: "op-1", role: "operator", name: "Anna"),
            3: Participant(id: "op-1", role: "admin", name: nil),
        ]
        let sighting = { (id: UInt64) -> OperatorSighting? in
            guard let staff = names[id] else {
                return OperatorSighting(
                    workspaceID: "w", staff: Participant(id: "op-\(id)", role: "operator", name: nil))
            }
            return OperatorSighting(workspaceID: id == 3 ? "x" : "w", staff: staff)
        }
        var sightings = StaffSightings()
        for id: UInt64 in 1...3 { sightings.add(id) }
        #expect(sightings.startWrite(sighting)?.rows.map(\.staff.name) == ["Anna", nil])
        #expect(sightings.startWrite(sighting) == nil, "nothing waits")
        sightings.finishWrite()
        for id in 0..<UInt64(StaffSightings.batchLimit + 1) { sightings.add(1000 + id) }
        let first = sightings.startWrite(sighting)
        #expect(first?.rows.count == StaffSightings.batchLimit)
        sightings.finishWrite(refused: first?.ids ?? [])
        #expect(sightings.startWrite(sighting)?.ids == first?.ids, "a refused batch goes first again")
        #expect(sightings.startWrite(sighting)?.ids == [1000 + UInt64(StaffSightings.batchLimit)])

        var busy = StaffSightings()
        for id in 1...UInt64(StaffSightings.maxWrites) {
            busy.add(id)
            #expect(busy.startWrite(sighting) != nil)
        }
        busy.add(99)
        #expect(busy.startWrite(sighting) == nil, "at most maxWrites in flight")
        busy.finishWrite()
        #expect(busy.startWrite(sighting)?.ids == [99])
    }
}
