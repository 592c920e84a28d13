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

    static func subscription(_ state: Subscription.State) -> Subscription {
        Subscription(connection: 1, peer: NoPeer(), sessionID: "s", joinID: 1, state: state, accessChecked: true)
    }
}
