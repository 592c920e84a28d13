import SwitchboardChat

@testable import SwitchboardChatCore

/// Subscriptions and frames for the state-machine tests, with a peer that
/// takes everything and does nothing (the tests look at the decisions).
enum SubscriptionFixture {
    final class NoPeer: ChatPeer {
        func send(_ frame: SharedFrame) {}
        func sendText(_ payload: [UInt8]) {}
        func batchWrites(_ body: () -> Void) { body() }
        func close(code: UInt16, reason: String) {}
    }

    static func frame(_ seq: Int64?) -> SessionFrame {
        SessionFrame(sessionID: "s", seq: seq, excludedConnection: nil, frame: SharedFrame(payload: Array("{}".utf8)))
    }

    /// A stored private note's frame at `seq`.
    static func note(_ seq: Int64) -> SessionFrame {
        let message = ChatMessage(
            id: "n\(seq)", sessionID: "s", seq: seq, clientMessageID: "n\(seq)", kind: ChatMessage.noteKind,
            body: "between us", sender: Participant(id: "op-1", role: "operator", name: nil),
            createdAt: "2026-11-25T00:00:00.000Z")
        return SessionFrame(message, frame: SharedFrame(payload: Array("{}".utf8)))
    }

    static func subscription(_ state: Subscription.State, seesNotes: Bool = true) -> Subscription {
        Subscription(
            connection: 1, peer: NoPeer(), sessionID: "s", joinID: 1, state: state, accessChecked: true,
            seesNotes: seesNotes)
    }
}
