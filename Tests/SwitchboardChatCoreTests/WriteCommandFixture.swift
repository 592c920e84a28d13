import SwitchboardWriter

/// A `send` as another writer of the same session would have made it (origin -1: no core awaits its answer).
enum WriteCommandFixture {
    static func make(sessionID: String, clientMessageID: String, body: String) -> WriteCommand {
        WriteCommand(
            sessionID: sessionID, clientMessageID: clientMessageID, senderRole: "operator", senderID: "op-elsewhere",
            senderName: "Else", kind: "text", body: body, origin: -1, token: 0)
    }
}
