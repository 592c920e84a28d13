import SwitchboardAuth
import SwitchboardChat
import SwitchboardJSON
import SwitchboardRouting
import Testing

private let ann = Participant(id: "v-42", role: "visitor", name: "Ann")
private let ken = Participant(id: "op-7", role: "operator", name: "Ken")
private let anonymous = Participant(id: "v-9", role: "visitor", name: nil)

private let openSession = SessionInfo(
    id: sessionUUID, workspaceID: "2b1c0000-0000-4000-8000-000000000001", visitorID: "v-42",
    title: "Order question", status: .open, assignedOperator: nil, lastSeq: 0, lastMessage: nil,
    createdAt: "2026-11-22T08:00:00.000Z", updatedAt: "2026-11-22T08:00:00.000Z")

private let assignedSession = SessionInfo(
    id: "11111111-2222-4333-8444-555555555555", workspaceID: "2b1c0000-0000-4000-8000-000000000001",
    visitorID: nil, title: "Quote \"x\"\n", status: .assigned,
    assignedOperator: AssignedOperator(id: "op-7", name: "Ken"),
    lastSeq: 58,
    lastMessage: LastMessage(seq: 58, body: "Hello", senderRole: "visitor", createdAt: "2026-11-22T08:00:01.234Z"),
    createdAt: "2026-11-22T08:00:00.000Z", updatedAt: "2026-11-22T08:00:01.234Z")

/// The session object as the protocol spells it, built independently of the encoder.
private func expectedJSON(_ session: SessionInfo) -> JSONValue {
    var object: JSONObject = [
        "id": .string(session.id), "workspace_id": .string(session.workspaceID),
        "visitor_id": session.visitorID.map(JSONValue.string) ?? .null, "title": .string(session.title),
        "status": .string(session.status.rawValue),
    ]
    object["assigned_operator"] =
        session.assignedOperator.map {
            .object(["id": .string($0.id), "name": $0.name.map(JSONValue.string) ?? .null])
        }
        ?? .null
    object["last_seq"] = .number(JSONNumber(session.lastSeq))
    object["last_message"] =
        session.lastMessage.map {
            .object([
                "seq": .number(JSONNumber($0.seq)), "body": .string($0.body), "sender_role": .string($0.senderRole),
                "created_at": .string($0.createdAt),
            ])
        } ?? .null
    object["created_at"] = .string(session.createdAt)
    object["updated_at"] = .string(session.updatedAt)
    object["version"] = .number(JSONNumber(session.version))
    // Queued: open, nobody assigned, a visitor waiting (docs/routing.md).
    let queued =
        session.status == .open && session.assignedOperator == nil && session.waitingSince != nil && !session.deleted
    object["queued"] = .bool(queued)
    object["waiting_since"] = session.waitingSince.map(JSONValue.string) ?? .null
    if let contact = session.contact { object["contact"] = try? JSONParser.parse(Array(contact.utf8)) }
    if session.deleted { object["deleted"] = .bool(true) }
    return .object(object)
}

private func expectedJSON(_ participant: Participant) -> JSONValue {
    [
        "id": .string(participant.id), "role": .string(participant.role),
        "name": participant.name.map(JSONValue.string) ?? .null,
    ]
}

@Suite struct ServerFrameEncoderTests {
    var encoder = ServerFrameEncoder()

    @Test mutating func welcome() throws {
        let identity = Identity(
            id: "v-42", role: .visitor, workspaceID: "2b1c0000-0000-4000-8000-000000000001", name: "Ann",
            expiresAt: 2_000_000_000)
        let bytes = encoder.welcome(
            connectionID: "c7Yx", identity: identity, heartbeatSeconds: 25, maxMessageBytes: 65536, maxBodyBytes: 8192)
        let frame = try parsed(bytes)
        #expect(frame.keys == ["type", "conn_id", "user", "workspace_id", "heartbeat_s", "limits"])
        #expect(frame["type"] == "welcome")
        #expect(frame["conn_id"] == "c7Yx")
        #expect(frame["user"] == ["id": "v-42", "role": "visitor", "name": "Ann"])
        #expect(frame["user"]?.objectValue?.keys == ["id", "role", "name"])
        #expect(frame["workspace_id"] == "2b1c0000-0000-4000-8000-000000000001")
        #expect(frame["heartbeat_s"] == 25)
        #expect(frame["limits"] == ["max_message_bytes": 65536, "max_body_bytes": 8192])
        #expect(frame["limits"]?.objectValue?.keys == ["max_message_bytes", "max_body_bytes"])

        let nameless = Identity(id: "op-1", role: .operator, workspaceID: "w", name: nil, expiresAt: 0)
        let second = try parsed(
            encoder.welcome(
                connectionID: "c", identity: nameless, heartbeatSeconds: 1, maxMessageBytes: 2, maxBodyBytes: 3))
        #expect(second["user"] == ["id": "op-1", "role": "operator", "name": nil])
    }

    @Test mutating func welcomeMatchesTheProtocolExampleByteForByte() {
        let identity = Identity(id: "v-42", role: .visitor, workspaceID: "2b1c...", name: "Ann", expiresAt: 0)
        let bytes = encoder.welcome(
            connectionID: "c7Yx", identity: identity, heartbeatSeconds: 25, maxMessageBytes: 65536, maxBodyBytes: 8192)
        let expected =
            #"{"type":"welcome","conn_id":"c7Yx","user":{"id":"v-42","role":"visitor","name":"Ann"},"workspace_id":"2b1c...","heartbeat_s":25,"limits":{"max_message_bytes":65536,"max_body_bytes":8192}}"#
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
    }

    /// A session waiting in the queue says so, and since when; its visitor's
    /// contact, when there is one, is the object the database holds.
    @Test mutating func aQueuedSessionCarriesItsWaitAndItsContact() throws {
        var queued = openSession
        queued.waitingSince = "2026-11-22T08:00:02.000Z"
        queued.contact = #"{"email":"ann@example.com"}"#
        let frame = try parsed(encoder.sessionUpdated(ref: nil, queued))
        #expect(frame["session"] == expectedJSON(queued))
        #expect(frame["session"]?["queued"] == true)
        #expect(frame["session"]?["waiting_since"] == "2026-11-22T08:00:02.000Z")
        #expect(frame["session"]?["contact"] == ["email": "ann@example.com"])

        var assigned = assignedSession
        assigned.waitingSince = queued.waitingSince
        let kept = try parsed(encoder.sessionUpdated(ref: nil, assigned))
        #expect(kept["session"]?["queued"] == false, "an assigned session keeps its wait and is not queued")
        #expect(kept["session"]?["contact"] == nil)
    }

    /// `presence`, as PROTOCOL.md's `presence.updated` shows an operator.
    @Test mutating func presenceCarriesTheOperatorsState() throws {
        let ken = OperatorPresence(
            id: "op-7", name: "Ken", role: "operator", status: .online, connected: true, activeSessions: 2, capacity: 5,
            lastAssignedAt: nil)
        let bytes = encoder.presence(ref: "p1", ken)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"type":"presence","ref":"p1","operator":{"id":"op-7","name":"Ken","status":"online","connected":true,"active_sessions":2,"capacity":5}}"#
        )
    }

    @Test mutating func aDeletedSessionSaysSoAndOthersDoNot() throws {
        var deleted = assignedSession
        deleted.deleted = true
        deleted.version = 9
        let frame = try parsed(encoder.sessionUpdated(ref: nil, deleted))
        #expect(frame["session"]?["deleted"] == true)
        #expect(frame["session"]?["version"] == 9)
        #expect(try parsed(encoder.sessionUpdated(ref: nil, assignedSession))["session"]?["deleted"] == nil)
    }

    @Test mutating func session() throws {
        let frame = try parsed(encoder.session(ref: "r1", openSession))
        #expect(frame.keys == ["type", "ref", "session"])
        #expect(frame["type"] == "session")
        #expect(frame["ref"] == "r1")
        #expect(frame["session"] == expectedJSON(openSession))
        #expect(
            frame["session"]?.objectValue?.keys == [
                "id", "workspace_id", "visitor_id", "title", "status", "assigned_operator", "last_seq", "last_message",
                "created_at", "updated_at", "version", "queued", "waiting_since",
            ])
        let withoutRef = try parsed(encoder.session(ref: nil, assignedSession))
        #expect(withoutRef.keys == ["type", "session"])
        #expect(withoutRef["session"] == expectedJSON(assignedSession))
        #expect(withoutRef["session"]?["assigned_operator"]?.objectValue?.keys == ["id", "name"])
        #expect(
            withoutRef["session"]?["last_message"]?.objectValue?.keys == ["seq", "body", "sender_role", "created_at"])
    }

    @Test mutating func assignedOperatorWithoutName() throws {
        var session = assignedSession
        session.assignedOperator = AssignedOperator(id: "op-9", name: nil)
        let frame = try parsed(encoder.sessionUpdated(ref: nil, session))
        #expect(frame["session"]?["assigned_operator"] == ["id": "op-9", "name": nil])
    }

    @Test mutating func joined() throws {
        let frame = try parsed(encoder.joined(ref: "r2", sessionID: sessionUUID, lastSeq: 57, truncated: true))
        #expect(frame.keys == ["type", "ref", "session_id", "last_seq", "truncated"])
        #expect(frame["type"] == "joined")
        #expect(frame["ref"] == "r2")
        #expect(frame["session_id"] == .string(sessionUUID))
        #expect(frame["last_seq"] == 57)
        #expect(frame["truncated"] == true)
        let plain = try parsed(encoder.joined(ref: nil, sessionID: sessionUUID, lastSeq: 0, truncated: false))
        #expect(plain.keys == ["type", "session_id", "last_seq", "truncated"])
        #expect(plain["truncated"] == false)
        #expect(plain["last_seq"] == 0)
    }

    @Test mutating func left() throws {
        let frame = try parsed(encoder.left(ref: "l", sessionID: sessionUUID))
        #expect(frame.keys == ["type", "ref", "session_id"])
        #expect(frame["type"] == "left")
        #expect(frame["ref"] == "l")
        #expect(frame["session_id"] == .string(sessionUUID))
        #expect(try parsed(encoder.left(ref: nil, sessionID: sessionUUID)).keys == ["type", "session_id"])
    }

    @Test mutating func ack() throws {
        let frame = try parsed(
            encoder.ack(
                ref: "r3", sessionID: sessionUUID, clientMessageID: "5d6c", seq: 58, id: "81723",
                createdAt: "2026-11-22T08:00:01.234Z", duplicate: false))
        #expect(frame.keys == ["type", "ref", "session_id", "client_msg_id", "seq", "id", "created_at", "duplicate"])
        #expect(frame["type"] == "ack")
        #expect(frame["ref"] == "r3")
        #expect(frame["session_id"] == .string(sessionUUID))
        #expect(frame["client_msg_id"] == "5d6c")
        #expect(frame["seq"] == 58)
        #expect(frame["id"] == "81723")
        #expect(frame["created_at"] == "2026-11-22T08:00:01.234Z")
        #expect(frame["duplicate"] == false)
        let retry = try parsed(
            encoder.ack(
                ref: nil, sessionID: sessionUUID, clientMessageID: "c", seq: Int64.max, id: "i", createdAt: "t",
                duplicate: true))
        #expect(retry["ref"] == nil)
        #expect(retry["duplicate"] == true)
        #expect(retry["seq"]?.int64Value == Int64.max)
    }

    @Test mutating func message() throws {
        let message = ChatMessage(
            id: "81723", sessionID: sessionUUID, seq: 58, clientMessageID: "5d6c", kind: "text",
            body: "Hello \"you\"\\\n\u{2028}\u{1F600}\u{0001}", sender: ann, createdAt: "2026-11-22T08:00:01.234Z")
        let frame = try parsed(encoder.message(message))
        #expect(
            frame.keys == ["type", "session_id", "seq", "id", "client_msg_id", "kind", "body", "sender", "created_at"])
        #expect(frame["type"] == "message")
        #expect(frame["session_id"] == .string(sessionUUID))
        #expect(frame["seq"] == 58)
        #expect(frame["id"] == "81723")
        #expect(frame["client_msg_id"] == "5d6c")
        #expect(frame["kind"] == "text")
        #expect(frame["body"] == .string(message.body))
        #expect(frame["sender"] == expectedJSON(ann))
        #expect(frame["sender"]?.objectValue?.keys == ["id", "role", "name"])
        #expect(frame["created_at"] == "2026-11-22T08:00:01.234Z")

        var anonymousMessage = message
        anonymousMessage.sender = anonymous
        #expect(
            try parsed(encoder.message(anonymousMessage))["sender"] == ["id": "v-9", "role": "visitor", "name": nil])
    }

    @Test mutating func typing() throws {
        let frame = try parsed(encoder.typing(sessionID: sessionUUID, sender: ken, state: true))
        #expect(frame.keys == ["type", "session_id", "sender", "state"])
        #expect(frame["type"] == "typing")
        #expect(frame["session_id"] == .string(sessionUUID))
        #expect(frame["sender"] == expectedJSON(ken))
        #expect(frame["state"] == true)
        #expect(try parsed(encoder.typing(sessionID: sessionUUID, sender: ken, state: false))["state"] == false)
    }

    @Test mutating func read() throws {
        let frame = try parsed(encoder.read(sessionID: sessionUUID, reader: anonymous, seq: 58))
        #expect(frame.keys == ["type", "session_id", "reader", "seq"])
        #expect(frame["type"] == "read")
        #expect(frame["session_id"] == .string(sessionUUID))
        #expect(frame["reader"] == expectedJSON(anonymous))
        #expect(frame["seq"] == 58)
    }

    @Test mutating func inbox() throws {
        let frame = try parsed(encoder.inbox(ref: "i", sessions: [openSession, assignedSession], nextCursor: "cur-1"))
        #expect(frame.keys == ["type", "ref", "sessions", "next_cursor"])
        #expect(frame["type"] == "inbox")
        #expect(frame["ref"] == "i")
        #expect(frame["sessions"] == .array([expectedJSON(openSession), expectedJSON(assignedSession)]))
        #expect(frame["next_cursor"] == "cur-1")

        let last = try parsed(encoder.inbox(ref: nil, sessions: [], nextCursor: nil))
        #expect(last.keys == ["type", "sessions", "next_cursor"])
        #expect(last["sessions"] == [])
        #expect(last["next_cursor"] == .null)
    }

    @Test mutating func sessionUpdated() throws {
        let frame = try parsed(encoder.sessionUpdated(ref: "a", assignedSession))
        #expect(frame.keys == ["type", "ref", "session"])
        #expect(frame["type"] == "session.updated")
        #expect(frame["ref"] == "a")
        #expect(frame["session"] == expectedJSON(assignedSession))
        let event = try parsed(encoder.sessionUpdated(ref: nil, openSession))
        #expect(event.keys == ["type", "session"])
        #expect(event["session"] == expectedJSON(openSession))
    }

    @Test mutating func error() throws {
        let frame = try parsed(encoder.error(ChatError(.forbidden, "session 9f0e is not yours", ref: "r3")))
        #expect(frame.keys == ["type", "ref", "code", "message"])
        #expect(frame["type"] == "error")
        #expect(frame["ref"] == "r3")
        #expect(frame["code"] == "forbidden")
        #expect(frame["message"] == "session 9f0e is not yours")
        let bare = try parsed(encoder.error(ChatError(.badRequest, "malformed JSON")))
        #expect(bare.keys == ["type", "code", "message"])
        #expect(bare["code"] == "bad_request")
    }

    @Test(arguments: [
        (ChatErrorCode.badRequest, "bad_request"), (.unauthorized, "unauthorized"), (.forbidden, "forbidden"),
        (.notFound, "not_found"), (.tooLarge, "too_large"), (.rateLimited, "rate_limited"),
        (.overloaded, "overloaded"), (.unavailable, "unavailable"),
    ])
    func errorCodesOnTheWire(code: ChatErrorCode, wire: String) throws {
        var encoder = ServerFrameEncoder()
        #expect(try parsed(encoder.error(ChatError(code, "m")))["code"] == .string(wire))
    }

    @Test mutating func pong() throws {
        let frame = try parsed(encoder.pong(ref: "p"))
        #expect(frame.keys == ["type", "ref"])
        #expect(frame["type"] == "pong")
        #expect(frame["ref"] == "p")
        #expect(String(decoding: encoder.pong(ref: nil), as: UTF8.self) == #"{"type":"pong"}"#)
    }

    @Test mutating func reuseDoesNotLeakThePreviousFrame() throws {
        let first = encoder.message(
            ChatMessage(
                id: "1", sessionID: sessionUUID, seq: 1, clientMessageID: "c", kind: "text",
                body: String(repeating: "long ", count: 200), sender: ann, createdAt: "t"))
        let second = encoder.pong(ref: "x")
        #expect(String(decoding: second, as: UTF8.self) == #"{"type":"pong","ref":"x"}"#)
        #expect(try parsed(first)["body"] == .string(String(repeating: "long ", count: 200)))
    }
}
