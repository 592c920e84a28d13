import Testing

@testable import LoadKit

/// The routing scenario's judge over hand-made sequences of what a run can
/// see: each promise kept, each one broken, and the races it must not call
/// a violation.
@Suite("RoutingInvariants")
struct RoutingInvariantsTests {
    typealias Snapshot = RoutingInvariants.Snapshot

    static func state(_ session: String, _ version: Int64, _ operatorID: String?, closed: Bool = false) -> Snapshot {
        Snapshot(session: session, version: version, closed: closed, operatorID: operatorID)
    }

    /// A session's first message sent at `sent` and acked at `acked`.
    static func waiting(_ invariants: inout RoutingInvariants, _ session: String, sent: UInt64, acked: UInt64) {
        invariants.snapshot(state(session, 1, nil), at: sent - 1)
        invariants.firstMessageSent(session, at: sent)
        invariants.firstMessageAcked(session, at: acked)
    }

    @Test("a run that keeps every promise: assigned, closed, the room used again; delays from the first message")
    func cleanRun() {
        var invariants = RoutingInvariants()
        invariants.capacity(of: "ken", is: 1)
        Self.waiting(&invariants, "s1", sent: 100, acked: 110)
        invariants.snapshot(Self.state("s1", 2, "ken"), at: 150)
        invariants.stored(.assigned(operatorID: "ken", previous: nil), in: "s1")
        invariants.closeRequested("s1")
        invariants.snapshot(Self.state("s1", 3, "ken", closed: true), at: 300)
        invariants.closeAnswered("s1")
        invariants.stored(.closed, in: "s1")
        Self.waiting(&invariants, "s2", sent: 400, acked: 410)
        invariants.snapshot(Self.state("s2", 2, "ken"), at: 420)
        invariants.stored(.assigned(operatorID: "ken", previous: nil), in: "s2")
        invariants.finish(passOrder: ["s1": 1, "s2": 2])
        #expect(invariants.violations.isEmpty)
        #expect(invariants.assignmentDelays == [50, 20])
        #expect(invariants.assignments == 2 && invariants.closes == 1)
    }

    @Test("an operator given more than its capacity is a violation")
    func overCapacity() {
        var invariants = RoutingInvariants()
        invariants.capacity(of: "ken", is: 1)
        invariants.snapshot(Self.state("s1", 2, "ken"), at: 1)
        invariants.snapshot(Self.state("s2", 2, "ken"), at: 2)
        #expect(invariants.violations.map(\.kind) == [.overCapacity])
    }

    @Test("a close still in flight may have freed the place; a close that failed gives it back")
    func closeInFlight() {
        var invariants = RoutingInvariants()
        invariants.capacity(of: "ken", is: 1)
        invariants.snapshot(Self.state("s1", 2, "ken"), at: 1)
        invariants.closeRequested("s1")
        invariants.snapshot(Self.state("s2", 2, "ken"), at: 2)
        #expect(invariants.violations.isEmpty)
        // Refused (no closed state came): s1 is Ken's still, and a third one is one too many.
        invariants.closeAnswered("s1")
        invariants.snapshot(Self.state("s3", 2, "ken"), at: 3)
        #expect(invariants.violations.map(\.kind) == [.overCapacity])
    }

    @Test("a state older than one seen changes nothing: a closed session seen late as assigned is not counted")
    func olderStatesIgnored() {
        var invariants = RoutingInvariants()
        invariants.capacity(of: "ken", is: 1)
        invariants.snapshot(Self.state("s1", 3, "ken", closed: true), at: 1)
        invariants.snapshot(Self.state("s1", 2, "ken"), at: 2)
        invariants.snapshot(Self.state("s2", 2, "ken"), at: 3)
        #expect(invariants.violations.isEmpty)
        #expect(invariants.assignments == 2)
    }

    @Test("moved between operators in the states, the load moves with it")
    func loadFollowsTheHolder() {
        var invariants = RoutingInvariants()
        invariants.capacity(of: "ken", is: 1)
        invariants.capacity(of: "ann", is: 1)
        invariants.snapshot(Self.state("s1", 2, "ken"), at: 1)
        invariants.snapshot(Self.state("s1", 4, "ann"), at: 2)
        invariants.snapshot(Self.state("s2", 2, "ken"), at: 3)
        #expect(invariants.violations.isEmpty)
        invariants.snapshot(Self.state("s3", 2, "ann"), at: 4)
        #expect(invariants.violations.map(\.kind) == [.overCapacity])
    }

    @Test("a session's own events: given while someone holds it, or moved with nobody transferring it, is twice")
    func assignedTwice() {
        var invariants = RoutingInvariants()
        invariants.stored(.assigned(operatorID: "ken", previous: nil), in: "s1")
        invariants.stored(.assigned(operatorID: "ann", previous: nil), in: "s1")
        invariants.stored(.assigned(operatorID: "ben", previous: "olga"), in: "s2")
        #expect(invariants.violations.map(\.kind) == [.assignedTwice, .assignedTwice])
    }

    @Test("closed and reopened, a session may be given again")
    func givenAgainAfterClosing() {
        var invariants = RoutingInvariants()
        invariants.stored(.assigned(operatorID: "ken", previous: nil), in: "s1")
        invariants.stored(.closed, in: "s1")
        invariants.stored(.assigned(operatorID: "ann", previous: nil), in: "s1")
        #expect(invariants.violations.isEmpty)
    }

    @Test("a session requeued while its operator stayed connected is reported")
    func requeued() {
        var invariants = RoutingInvariants()
        invariants.stored(.assigned(operatorID: "ken", previous: nil), in: "s1")
        invariants.stored(.released(action: "requeued"), in: "s1")
        #expect(invariants.violations.map(\.kind) == [.requeued])
    }

    @Test("queued before another was sent and assigned by a later pass: out of order; by the same pass: in order")
    func firstComeFirstServed() {
        func run(_ passes: [String: Int64]) -> [RoutingInvariants.Violation.Kind] {
            var invariants = RoutingInvariants()
            Self.waiting(&invariants, "a", sent: 10, acked: 20)
            Self.waiting(&invariants, "b", sent: 30, acked: 40)
            invariants.snapshot(Self.state("b", 2, "ken"), at: 50)
            invariants.snapshot(Self.state("a", 2, "ann"), at: 60)
            #expect(invariants.overtakes.map { "\($0.older)<\($0.newer)" } == ["a<b"])
            invariants.finish(passOrder: passes)
            return invariants.violations.map(\.kind)
        }
        #expect(run(["a": 7, "b": 7]).isEmpty)
        #expect(run(["a": 6, "b": 7]).isEmpty)
        #expect(run(["a": 8, "b": 7]) == [.outOfOrder])
        #expect(run(["b": 7]) == [.outOfOrder])
    }

    @Test("one not acked before the other was sent may come later: no pair to judge")
    func notAckedBeforeTheOtherWasSent() {
        var invariants = RoutingInvariants()
        Self.waiting(&invariants, "a", sent: 10, acked: 35)
        Self.waiting(&invariants, "b", sent: 30, acked: 40)
        invariants.snapshot(Self.state("b", 2, "ken"), at: 50)
        invariants.snapshot(Self.state("a", 2, "ann"), at: 60)
        #expect(invariants.overtakes.isEmpty)
    }

    @Test("without the passes' order the pairs stay unjudged, and are said to be")
    func unjudgedWithoutTheDatabase() {
        var invariants = RoutingInvariants()
        Self.waiting(&invariants, "a", sent: 10, acked: 20)
        Self.waiting(&invariants, "b", sent: 30, acked: 40)
        invariants.snapshot(Self.state("b", 2, "ken"), at: 50)
        invariants.snapshot(Self.state("a", 2, "ann"), at: 60)
        invariants.finish(passOrder: nil)
        #expect(invariants.violations.isEmpty)
        #expect(invariants.unjudgedOvertakes == 1)
    }

    @Test("acked and never assigned by the end is a violation; closed without its events shown is one too")
    func neverAssignedAndLost() {
        var invariants = RoutingInvariants()
        Self.waiting(&invariants, "a", sent: 10, acked: 20)
        Self.waiting(&invariants, "b", sent: 30, acked: 40)
        invariants.snapshot(Self.state("b", 2, "ken"), at: 50)
        invariants.snapshot(Self.state("b", 3, "ken", closed: true), at: 60)
        invariants.stored(.assigned(operatorID: "ken", previous: nil), in: "b")
        invariants.finish(passOrder: ["a": 1, "b": 1])
        #expect(invariants.violations.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.lost, .neverAssigned])
    }

    @Test("the frames' members: a session's holder and version, an event's change, presence's capacity")
    func frames() {
        let updated = #"""
            {"type":"session.updated","session":{"id":"s1","status":"assigned","assigned_operator":{"id":"op-7","name":"Ken"},"version":3,"queued":false}}
            """#
        let event = #"""
            {"type":"message","session_id":"s1","seq":2,"kind":"event","body":"Ken joined","meta":{"action":"assigned","reason":"routing","operator":{"id":"op-7","name":"Ken"},"previous":null}}
            """#
        let presence = #"""
            {"type":"presence","ref":"p-away","operator":{"id":"op-7","name":"Ken","status":"away","connected":true,"active_sessions":2,"capacity":5}}
            """#
        Array(updated.utf8).withUnsafeBytes { bytes in
            let frame = RoutingFrames.read(bytes)
            #expect(frame?.type == "session.updated")
            let snapshot = frame?.session.flatMap { RoutingFrames.snapshot(bytes, $0) }
            #expect(snapshot == Self.state("s1", 3, "op-7"))
        }
        Array(event.utf8).withUnsafeBytes { bytes in
            let frame = RoutingFrames.read(bytes)
            #expect(frame?.isEvent == true && frame?.seq == 2)
            #expect(
                frame?.meta.flatMap { RoutingFrames.stored(bytes, meta: $0) }
                    == .assigned(operatorID: "op-7", previous: nil))
        }
        Array(presence.utf8).withUnsafeBytes { bytes in
            let frame = RoutingFrames.read(bytes)
            let object = frame?.operatorObject
            #expect(object.flatMap { RoutingFrames.integer("capacity", of: bytes, $0) } == 5)
            #expect(object.flatMap { RoutingFrames.member("status", of: bytes, $0) } == "away")
            #expect(frame?.ref == "p-away")
        }
    }
}
