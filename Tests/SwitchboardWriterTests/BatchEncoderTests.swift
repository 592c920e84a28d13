import SwitchboardIdentifiers
import Testing

@testable import SwitchboardWriter

@Suite struct BatchEncoderTests {
    private func queued(_ body: String, name: String? = "Ann") -> QueuedCommand {
        QueuedCommand(
            command: WriteCommand(
                sessionID: "00000000-0000-4000-8000-000000000001", clientMessageID: "c", senderRole: "visitor",
                senderID: "v", senderName: name, kind: "text", body: body, origin: 0, token: 0),
            acceptedAt: 0)
    }

    @Test func quotesEveryElementAndEscapesQuotesAndBackslashes() {
        var encoder = BatchEncoder()
        let parameters = encoder.encode([queued("plain"), queued(#"a "quoted" \ back"#, name: nil), queued("")][...])
        #expect(parameters[6] == #"{"plain","a \"quoted\" \\ back",""}"#)
        #expect(parameters[4] == #"{"Ann",NULL,"Ann"}"#)
        #expect(
            parameters[0]
                == #"{"00000000-0000-4000-8000-000000000001","00000000-0000-4000-8000-000000000001","00000000-0000-4000-8000-000000000001"}"#
        )
    }

    @Test func keepsMultibyteTextAndReusesItsBuffers() {
        var encoder = BatchEncoder()
        _ = encoder.encode([queued("first batch")][...])
        let parameters = encoder.encode([queued("héllo {wörld}, \"ü\" 🎉")][...])
        #expect(parameters[6] == #"{"héllo {wörld}, \"ü\" 🎉"}"#)
    }

    @Test func validatesUUIDTextAndNULBytes() {
        #expect(WriteCommand.isUUIDText("00000000-0000-4000-8000-00000000000a"))
        #expect(WriteCommand.isUUIDText("ABCDEF00-0000-4000-8000-00000000000A"))
        #expect(!WriteCommand.isUUIDText("00000000-0000-4000-8000-00000000000g"))
        #expect(!WriteCommand.isUUIDText("000000000000-4000-8000-00000000000a0"))
        #expect(!WriteCommand.isUUIDText("00000000-0000-4000-8000-00000000000"))
        #expect(WriteCommand.containsNUL("a\u{0}b"))
        #expect(!WriteCommand.containsNUL("ab"))
    }
}
