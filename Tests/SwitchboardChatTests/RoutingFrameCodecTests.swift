import SwitchboardAuth
import SwitchboardChat
import SwitchboardRouting
import Testing

/// The routing frames' wire form (docs/protocol.md): `presence.subscribe`
/// and `session.contact` in, `presence.list`, `presence.updated`,
/// `availability` and `welcome.operators_available` out.
@Suite struct RoutingFrameCodecTests {
    var encoder = ServerFrameEncoder()
    let ken = OperatorPresence(
        id: "op-7", name: "Ken", role: "operator", status: .online, connected: true, activeSessions: 2, capacity: 5,
        lastAssignedAt: "2026-11-25T01:00:00.000Z")

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func presenceSubscribeAndContactDecode() {
        #expect(
            accepted(#"{"type":"presence.subscribe","ref":"s1"}"#)
                == ClientRequest(ref: "s1", frame: .presenceSubscribe))
        let session = "aaaaaaaa-0000-4000-8000-000000000001"
        #expect(
            accepted(#"{"type":"session.contact","session_id":"\#(session)","email":"vera@example.com"}"#)?.frame
                == .sessionContact(sessionID: session, email: "vera@example.com"))
        for bad in [
            #"{"type":"session.contact","email":"vera@example.com"}"#,
            #"{"type":"session.contact","session_id":"\#(session)"}"#,
            #"{"type":"session.contact","session_id":"\#(session)","email":7}"#,
            #"{"type":"session.contact","session_id":"\#(session)","email":"not an address"}"#,
            #"{"type":"session.contact","session_id":"\#(session)","email":"\#(String(repeating: "a", count: 250))@example.com"}"#,
        ] {
            #expect(refused(bad)?.code == .badRequest, "\(bad)")
        }
    }

    @Test func plausibleAddresses() {
        for good in ["vera@example.com", "v.e+ra@mail.example.co.uk", "x@a.io"] {
            #expect(ContactEmail.problem(good) == nil, "\(good)")
        }
        for bad in [
            "", "vera", "@example.com", "vera@", "vera@example", "vera@.com", "a@b@c.com", "v ra@example.com",
            "v,ra@example.com", "vera@example..com", String(repeating: "l", count: 65) + "@example.com",
        ] {
            #expect(ContactEmail.problem(bad) != nil, "\(bad)")
        }
    }

    /// As PROTOCOL.md's example shows an operator.
    @Test mutating func presenceListAndUpdated() {
        #expect(
            text(encoder.presenceUpdated(ken))
                == #"{"type":"presence.updated","operator":{"id":"op-7","name":"Ken","status":"online","connected":true,"active_sessions":2,"capacity":5}}"#
        )
        let ann = OperatorPresence(
            id: "ad-1", name: nil, role: "admin", status: .offline, connected: false, activeSessions: 0, capacity: 5,
            lastAssignedAt: nil)
        #expect(
            text(encoder.presenceList(ref: "s1", [ken, ann]))
                == #"{"type":"presence.list","ref":"s1","operators":[{"id":"op-7","name":"Ken","status":"online","connected":true,"active_sessions":2,"capacity":5},{"id":"ad-1","name":null,"status":"offline","connected":false,"active_sessions":0,"capacity":5}]}"#
        )
        #expect(text(encoder.presenceList(ref: nil, [])) == #"{"type":"presence.list","operators":[]}"#)
    }

    @Test mutating func availabilitySaysOnlyWhatApplies() {
        #expect(
            text(encoder.availability(sessionID: "s", VisitorAvailability(operatorsAvailable: false, queuePosition: 3)))
                == #"{"type":"availability","session_id":"s","operators_available":false,"queue_position":3}"#)
        #expect(
            text(
                encoder.availability(sessionID: "s", VisitorAvailability(operatorsAvailable: true, queuePosition: nil)))
                == #"{"type":"availability","session_id":"s","operators_available":true}"#)
        let closed = VisitorAvailability(
            operatorsAvailable: false, queuePosition: nil,
            hours: OpeningState(open: false, opensAt: "2026-11-26T08:00:00Z"))
        #expect(
            text(encoder.availability(sessionID: "s", closed))
                == #"{"type":"availability","session_id":"s","operators_available":false,"open":false,"opens_at":"2026-11-26T08:00:00Z"}"#
        )
        #expect(OpeningState(open: true, opensAt: "ignored").opensAt == nil)
    }

    @Test mutating func welcomeCarriesOperatorsAvailableWhenRoutingRuns() {
        let identity = Identity(
            id: "v-1", role: .visitor, workspaceID: "0b1c2d3e-0000-4000-8000-000000000001", name: nil,
            expiresAt: 2_000_000_000)
        let with = text(
            encoder.welcome(
                connectionID: "c1", identity: identity, heartbeatSeconds: 25, maxMessageBytes: 65536,
                maxBodyBytes: 8192, operatorsAvailable: true))
        #expect(with.hasSuffix(#""max_body_bytes":8192},"operators_available":true}"#))
        let without = text(
            encoder.welcome(
                connectionID: "c1", identity: identity, heartbeatSeconds: 25, maxMessageBytes: 65536,
                maxBodyBytes: 8192))
        #expect(!without.contains("operators_available"))
    }
}
