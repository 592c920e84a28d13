import Testing

@testable import SwitchboardChatCore

/// `read` frames: one statement in flight per core, at most one per
/// `read_interval_ms` (20 ms here), and what arrives meanwhile stored together
/// in the next (`PendingReads`).
@Suite struct ChatCoreReadTests {
    /// A session with three messages, its visitor Vera and operator Ken joined.
    private func conversation() -> (CoreHarness, CoreHarness.Client, CoreHarness.Client, String) {
        let harness = CoreHarness(loops: 1)
        let vera = harness.connect(.visitor, "v-vera", name: "Vera")
        let session = harness.createSession(vera)
        let ken = harness.connect(.operator, "op-ken", name: "Ken")
        ken.send(["type": "join", "session_id": session])
        for index in 1...3 { harness.storeMessage(session, body: "m\(index)") }
        harness.settle()
        for client in [vera, ken] { _ = client.peer.take() }
        return (harness, vera, ken, session)
    }

    private static func reads(_ frames: [[String: Any]]) -> [String] {
        frames.ofType("read").map { frame in
            let reader = (frame["reader"] as? [String: Any])?["id"] as? String ?? "?"
            return "\(reader):\(frame["seq"] as? Int ?? -1)"
        }
    }

    @Test func readsArrivingWhileOneIsStoredGoTogetherInTheNextStatement() {
        let (harness, vera, ken, session) = conversation()
        ken.send(["type": "read", "session_id": session, "seq": 1])
        ken.send(["type": "read", "session_id": session, "seq": 3])
        ken.send(["type": "read", "session_id": session, "seq": 2])
        vera.send(["type": "read", "session_id": session, "seq": 2])
        #expect(harness.readers[0].runQueries(postAnswers: false) == 1, "the first read went at once, alone")
        harness.settle()

        let statements = harness.database.readStatements.map { $0.map { "\($0.readerID):\($0.seq)" }.sorted() }
        #expect(statements == [["op-ken:1"], ["op-ken:3", "v-vera:2"]], "Ken's highest only, beside Vera's")
        #expect(harness.loops[0].timerDelays == [20], "the second waited out the interval from the first")
        for client in [vera, ken] {
            let reads = Self.reads(client.peer.take())
            #expect(reads.first == "op-ken:1" && reads.dropFirst().sorted() == ["op-ken:3", "v-vera:2"])
        }

        harness.loops[0].advance(by: 1_000)
        ken.send(["type": "read", "session_id": session, "seq": 3])
        #expect(harness.readers[0].runQueries(postAnswers: false) == 1, "a read on a quiet core goes at once")
        harness.settle()
        #expect(harness.loops[0].timerDelays == [20])
        #expect(Self.reads(vera.peer.take()) == ["op-ken:3"])
    }

    /// Ken on two tabs, each asking while Vera's read is stored, then the
    /// session gone: one position for him, and each tab told with the ref
    /// of its own latest read.
    @Test func aFailedPositionIsToldToEveryConnectionThatAskedWithItsRef() {
        let (harness, vera, ken, session) = conversation()
        let kenAgain = harness.connect(.operator, "op-ken", name: "Ken")
        kenAgain.send(["type": "join", "session_id": session])
        harness.settle()
        _ = kenAgain.peer.take()

        vera.send(["type": "read", "session_id": session, "seq": 1])
        ken.send(["type": "read", "session_id": session, "seq": 2, "ref": "k1"])
        ken.send(["type": "read", "session_id": session, "seq": 3, "ref": "k2"])
        kenAgain.send(["type": "read", "session_id": session, "seq": 3, "ref": "t"])
        harness.database.forget(session)
        harness.settle()

        #expect(harness.database.readStatements.map(\.count) == [1, 1])
        let errors = { (client: CoreHarness.Client) in
            client.peer.take().ofType("error").map { "\($0["code"] as? String ?? "?"):\($0["ref"] as? String ?? "-")" }
        }
        #expect(errors(vera) == ["not_found:-"])
        #expect(errors(ken) == ["not_found:k2"])
        #expect(errors(kenAgain) == ["not_found:t"])
    }

    @Test func aStatementTheReadersRefuseIsOverloadedAndTheNextReadGoes() {
        let (harness, vera, ken, session) = conversation()
        harness.readers[0].accepting = false
        ken.send(["type": "read", "session_id": session, "seq": 2, "ref": "r"])
        let refused = ken.peer.take()
        #expect(refused.ofType("error").map { $0["code"] as? String } == ["overloaded"])
        #expect(refused.ofType("error").first?["ref"] as? String == "r")

        harness.readers[0].accepting = true
        ken.send(["type": "read", "session_id": session, "seq": 2])
        harness.settle()
        #expect(Self.reads(vera.peer.take()) == ["op-ken:2"])
    }
}
