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

    @Test func sendsNoAttachmentArrayForABatchWithoutAttachments() {
        var encoder = BatchEncoder()
        let parameters = encoder.encode([queued("a"), queued("b")][...])
        #expect(parameters.count == 8)
        #expect(parameters[7] == nil)
    }

    @Test func joinsEachCommandsAttachmentIDsAndWritesNULLForNone() {
        var encoder = BatchEncoder()
        var photo = queued("photo")
        photo.command.attachmentIDs = ["0f3c0000-0000-4000-8000-000000000001", "0f3c0000-0000-4000-8000-000000000002"]
        let parameters = encoder.encode([queued("plain"), photo, queued("after")][...])
        #expect(
            parameters[7]
                == #"{NULL,"0f3c0000-0000-4000-8000-000000000001,0f3c0000-0000-4000-8000-000000000002",NULL}"#)
        // The next batch without attachments goes without the array again.
        #expect(encoder.encode([queued("plain")][...])[7] == nil)
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
