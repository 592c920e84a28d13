import SwitchboardChat
import SwitchboardCluster
import Testing

/// What one node encodes, every other node decodes to the same event; what
/// is malformed is an error, never a crash.
@Suite struct BusCodecTests {
    private let session = SessionInfo(
        id: "aaaaaaaa-0000-4000-8000-000000000001", workspaceID: "0b1c2d3e-0000-4000-8000-000000000001",
        visitorID: "v-1", title: "Order \"42\"\n", status: .assigned,
        assignedOperator: AssignedOperator(id: "op-1", name: nil), lastSeq: 2,
        lastMessage: LastMessage(seq: 2, body: "héllo", senderRole: "visitor", createdAt: "2026-11-23T08:00:00.000Z"),
        createdAt: "2026-11-23T07:00:00.000Z", updatedAt: "2026-11-23T08:00:00.000Z", version: 7)

    private func message(_ seq: Int64, name: String?) -> ChatMessage {
        ChatMessage(
            id: "01a2075b-fde4-7715-a317-70e0e101cf5\(seq)", sessionID: session.id, seq: seq,
            clientMessageID: "c\(seq)",
            kind: "text", body: seq == 2 ? "héllo" : "a\\b\"c",
            sender: Participant(id: "v-1", role: "visitor", name: name),
            createdAt: "2026-11-23T08:00:00.000Z")
    }

    /// A system line the gateway stored, with its structured change.
    private func event(_ seq: Int64) -> ChatMessage {
        ChatMessage(
            id: "01a2075b-fde4-7715-a317-70e0e101cf6\(seq)", sessionID: session.id, seq: seq,
            clientMessageID: "event:01a2075b-fde4-7715-a317-70e0e101cf6\(seq)", kind: ChatMessage.eventKind,
            body: "Olga took over the conversation from Ben",
            sender: Participant(id: "op-olga", role: "operator", name: "Olga"), createdAt: "2026-11-23T08:00:01.000Z",
            meta: #"{"action": "assigned", "previous": {"id": "op-ben", "name": "Ben"}}"#)
    }

    private func roundTrip(_ event: BusEvent) throws -> BusNotification {
        var encoder = BusEncoder(node: "node-a")
        return try BusDecoder.decode(encoder.encode(event))
    }

    @Test func everyEventSurvivesTheTrip() throws {
        let events: [BusEvent] = [
            .committed(messages: [message(1, name: nil), message(2, name: "Vera")], sessions: [session]),
            .committed(messages: [], sessions: [session]),
            .committed(messages: [event(3)], sessions: []),
            .ranges([CommittedRange(sessionID: session.id, workspaceID: nil, firstSeq: 3, lastSeq: 90)]),
            .sessionFrame(sessionID: session.id, payload: Array(#"{"type":"typing","a":"\n"}"#.utf8)),
            .sessionChanged(session),
            .sessionStale(sessionID: session.id, workspaceID: session.workspaceID),
        ]
        for event in events {
            let decoded = try roundTrip(event)
            #expect(decoded.node == "node-a" && decoded.sentAtMicroseconds > 0)
            #expect(decoded.event == event)
        }
    }

    /// A queued session's wait and its visitor's contact (migration 9) go
    /// with it, in its own event and on its messages; a contact must be a
    /// JSON object, since clients get it as it is.
    @Test func theRoutingStateSurvivesTheTrip() throws {
        var queued = session
        queued.status = .open
        queued.assignedOperator = nil
        queued.waitingSince = "2026-11-23T07:30:00.000Z"
        queued.contact = #"{"email":"vera@example.com"}"#
        #expect(queued.queued)
        for event: BusEvent in [
            .sessionChanged(queued), .committed(messages: [message(2, name: "Vera")], sessions: [queued]),
        ] {
            #expect(try roundTrip(event).event == event)
        }
        var notAnObject = queued
        notAnObject.contact = "[1]"
        var encoder = BusEncoder(node: "node-a")
        #expect(throws: BusDecodeError.self) { try BusDecoder.decode(encoder.encode(.sessionChanged(notAnObject))) }
    }

    /// The same format as PostgreSQL's json_build_object spells it (spaces
    /// after separators): an earlier design built payloads in SQL, and any
    /// JSON writer must do.
    @Test func anyJSONSpellingDecodes() throws {
        let payload = #"""
            {"v" : 1, "n" : "node-a", "t" : "m", "ts" : 1795419799018064, "m" : [["01a2075b-fde4-7715-a317-70e0e101cf59", "aaaaaaaa-0000-4000-8000-000000000001", 1, "c1", "text", "hi \"x\"", "visitor", "v1", null, "2026-11-23T07:43:19.006Z", null], ["01a2075b-fde4-7715-a317-70e0e101cf5b", "aaaaaaaa-0000-4000-8000-000000000001", 2, "c3", "text", "c", "visitor", "v1", "Bo", "2026-11-23T07:43:19.006Z", [2, "0b1c2d3e-0000-4000-8000-000000000001", "open", "New chat", "v1", null, null, "2026-11-23T07:43:19.002Z", "2026-11-23T07:43:19.006Z"]]]}
            """#
        let decoded = try BusDecoder.decode(Array(payload.utf8))
        guard case .committed(let messages, let sessions) = decoded.event else {
            Issue.record("not a committed batch: \(decoded.event)")
            return
        }
        #expect(messages.map(\.seq) == [1, 2] && messages[0].body == #"hi "x""# && messages[1].sender.name == "Bo")
        #expect(sessions.count == 1 && sessions[0].version == 2 && sessions[0].lastSeq == 2)
        #expect(sessions[0].lastMessage?.body == "c" && sessions[0].assignedOperator == nil)
    }

    @Test func malformedNotificationsAreErrors() {
        let bad = [
            "", "{", "[]", #"{"v":2,"n":"a","t":"m","m":[]}"#, #"{"v":1,"t":"m","m":[]}"#,
            #"{"v":1,"n":"a","t":"q"}"#, #"{"v":1,"n":"a","t":"m","m":[[1,2,3]]}"#,
            #"{"v":1,"n":"a","t":"r","r":[["s",null,5,4]]}"#, #"{"v":1,"n":"a","t":"e","s":"x"}"#,
            #"{"v":1,"n":"a","t":"c","s":[1]}"#,
        ]
        for text in bad {
            #expect(throws: BusDecodeError.self, "\(text)") { try BusDecoder.decode(Array(text.utf8)) }
        }
    }

    /// A batch too big for a few PostgreSQL notifications goes as its
    /// sessions' ranges, a bounded number to a notification, each under the limit.
    @Test func aBigBatchGoesAsItsSessionsRanges() throws {
        var encoder = BusEncoder(node: "node-a")
        var messages: [ChatMessage] = []
        var sessions: [SessionInfo] = []
        for index in 0..<120 {
            var state = session
            state.id = String(format: "aaaaaaaa-0000-4000-8000-%012d", index % 60)
            var message = self.message(Int64(index / 60 + 1), name: "Vera")
            message.sessionID = state.id
            message.body = String(repeating: "b", count: 150)
            messages.append(message)
            if index >= 60 { sessions.append(state) }
        }
        let payloads = encoder.encodeCommitted(messages, sessions: sessions, maxBytes: 7999)
        #expect(payloads.count == 2 && payloads.allSatisfy { $0.count <= 7999 })
        var ranges: [CommittedRange] = []
        for payload in payloads {
            guard case .ranges(let got) = try BusDecoder.decode(payload).event else {
                Issue.record("not ranges")
                continue
            }
            ranges += got
        }
        #expect(ranges.count == 60 && ranges.allSatisfy { $0.firstSeq == 1 && $0.lastSeq == 2 })
        #expect(ranges.allSatisfy { $0.workspaceID == session.workspaceID })
    }

    /// A batch a few notifications can carry is split: every message arrives
    /// once, in order, and each session's state rides with its last message.
    @Test func aMediumBatchIsSplitIntoNotificationsThatFit() throws {
        var encoder = BusEncoder(node: "node-a")
        let other = SessionInfo(
            id: "aaaaaaaa-0000-4000-8000-000000000002", workspaceID: session.workspaceID, visitorID: nil,
            title: "t", status: .open, assignedOperator: nil, lastSeq: 30, lastMessage: nil,
            createdAt: session.createdAt, updatedAt: session.updatedAt, version: 3)
        var messages: [ChatMessage] = []
        for seq in 1...40 {
            var message = self.message(Int64(seq), name: "Vera")
            message.sessionID = seq % 2 == 0 ? session.id : other.id
            message.body = String(repeating: "b", count: 150)
            messages.append(message)
        }
        let payloads = encoder.encodeCommitted(messages, sessions: [session, other], maxBytes: 7999)
        #expect(payloads.count > 1 && payloads.count <= 4 && payloads.allSatisfy { $0.count <= 7999 })
        var seqs: [Int64] = []
        var states: [String: Int64] = [:]
        for payload in payloads {
            guard case .committed(let got, let sessions) = try BusDecoder.decode(payload).event else {
                Issue.record("not a committed batch")
                continue
            }
            seqs += got.map(\.seq)
            for state in sessions { states[state.id] = state.lastSeq }
        }
        #expect(seqs == Array(1...40))
        #expect(states == [session.id: 40, other.id: 39])
    }

    @Test func aMessageTooBigForAnyNotificationGoesAsItsRange() throws {
        var encoder = BusEncoder(node: "node-a")
        var big = message(7, name: nil)
        big.body = String(repeating: "x", count: 9000)
        let payloads = encoder.encodeCommitted([big], sessions: [session], maxBytes: 7999)
        #expect(payloads.count == 1)
        #expect(
            try BusDecoder.decode(payloads[0]).event
                == .ranges([
                    CommittedRange(sessionID: session.id, workspaceID: session.workspaceID, firstSeq: 7, lastSeq: 7)
                ]))
    }

    @Test func aBatchThatFitsGoesWhole() throws {
        var encoder = BusEncoder(node: "node-a")
        let payloads = encoder.encodeCommitted(
            [message(1, name: nil), message(2, name: nil)], sessions: [session], maxBytes: 7999)
        #expect(payloads.count == 1)
        guard case .committed(let messages, let states) = try BusDecoder.decode(payloads[0]).event else {
            Issue.record("not committed")
            return
        }
        #expect(messages.map(\.seq) == [1, 2] && states.map(\.id) == [session.id])
    }
}
