import SwitchboardIdentifiers
import Testing

@testable import SwitchboardWriter

@Suite struct BatchEncoderTests {
    private func queued(_ body: String, name: String? = "Ann") -> QueuedCommand {
        QueuedCommand(
            command: WriteCommand(
                sessionID: "00000000-0000-4000-8000-000000000001", clientMessageID: "c", senderRole: "visitor",
                senderID: "v", senderName: name, kind: "text", body: body, origin: 0, token: 0),
            acceptedAt: 0, home: 0)
    }

    /// Parameter `index` read back from PostgreSQL's binary array format:
    /// its element type and elements (a uuid as its text), or nil for NULL.
    private func array(_ encoder: BatchEncoder, _ index: Int) -> (type: UInt32, elements: [String?])? {
        guard let value = encoder.parameters.value(at: index) else { return nil }
        let bytes = Array(value)
        var offset = 0
        func int32() -> Int32 {
            defer { offset += 4 }
            return Int32(bitPattern: bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) })
        }
        let dimensions = int32()
        let hasNulls = int32()
        let type = UInt32(bitPattern: int32())
        var elements: [String?] = []
        if dimensions == 1 {
            let count = Int(int32())
            #expect(int32() == 1)
            for _ in 0..<count {
                let length = Int(int32())
                if length < 0 {
                    elements.append(nil)
                    continue
                }
                let element = bytes[offset..<offset + length]
                offset += length
                elements.append(type == 2950 ? uuidText(element) : String(decoding: element, as: UTF8.self))
            }
        }
        #expect(offset == bytes.count)
        #expect((hasNulls == 1) == elements.contains { $0 == nil })
        return (type, elements)
    }

    private func uuidText(_ bytes: ArraySlice<UInt8>) -> String {
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    @Test func sendsSessionIDsAsUUIDsAndTextAsItIsWithNULLForNone() {
        var encoder = BatchEncoder()
        encoder.encode([queued("plain"), queued(#"a "quoted" \ back {,}"#, name: nil), queued("")][...])
        #expect(encoder.parameters.count == 8)
        let sessions = array(encoder, 0)
        #expect(sessions?.type == 2950)
        #expect(sessions?.elements == Array(repeating: "00000000-0000-4000-8000-000000000001", count: 3))
        let bodies = array(encoder, 6)
        #expect(bodies?.type == 25)
        #expect(bodies?.elements == ["plain", #"a "quoted" \ back {,}"#, ""])
        #expect(array(encoder, 4)?.elements == ["Ann", nil, "Ann"])
        #expect(array(encoder, 1)?.elements == ["c", "c", "c"])
        #expect(array(encoder, 2)?.elements == ["visitor", "visitor", "visitor"])
        #expect(array(encoder, 5)?.elements == ["text", "text", "text"])
    }

    @Test func readsUUIDsInEitherCase() {
        var encoder = BatchEncoder()
        var upper = queued("a")
        upper.command.sessionID = "ABCDEF01-2345-4678-9ABC-DEF012345678"
        encoder.encode([upper][...])
        #expect(array(encoder, 0)?.elements == ["abcdef01-2345-4678-9abc-def012345678"])
    }

    @Test func keepsMultibyteTextAndReusesItsBuffer() {
        var encoder = BatchEncoder()
        encoder.encode([queued("first batch, which is longer than the next")][...])
        encoder.encode([queued("héllo {wörld}, \"ü\" 🎉")][...])
        #expect(array(encoder, 6)?.elements == ["héllo {wörld}, \"ü\" 🎉"])
        #expect(array(encoder, 0)?.elements.count == 1)
    }

    @Test func sendsNoAttachmentArrayForABatchWithoutAttachments() {
        var encoder = BatchEncoder()
        encoder.encode([queued("a"), queued("b")][...])
        #expect(encoder.parameters.count == 8)
        #expect(encoder.parameters.value(at: 7) == nil)
    }

    @Test func joinsEachCommandsAttachmentIDsAndWritesNULLForNone() {
        var encoder = BatchEncoder()
        var photo = queued("photo")
        photo.command.attachmentIDs = ["0f3c0000-0000-4000-8000-000000000001", "0f3c0000-0000-4000-8000-000000000002"]
        encoder.encode([queued("plain"), photo, queued("after")][...])
        #expect(
            array(encoder, 7)?.elements == [
                nil, "0f3c0000-0000-4000-8000-000000000001,0f3c0000-0000-4000-8000-000000000002", nil,
            ])
        // The next batch without attachments goes without the array again.
        encoder.encode([queued("plain")][...])
        #expect(encoder.parameters.value(at: 7) == nil)
    }

    @Test func readsAUUIDsBitsFromItsTextInEitherCaseAndRefusesWhatIsNotOne() {
        let value = UUIDText.value("ABCDEF01-2345-4678-9abc-DEF012345678")
        #expect(value?.high == 0xabcd_ef01_2345_4678)
        #expect(value?.low == 0x9abc_def0_1234_5678)
        for text in [
            "00000000-0000-4000-8000-00000000000g", "000000000000-4000-8000-00000000000a0",
            "00000000-0000-4000-8000-00000000000", "", "00000000-0000-4000-8000-00000000000@",
            "00000000-0000-4000-8000-00000000000G", "00000000_0000-4000-8000-000000000000",
        ] {
            #expect(UUIDText.value(text) == nil, "\(text)")
            #expect(UUIDText.canonical(text) == nil, "the same parse decides canonical text: \(text)")
        }
        #expect(UUIDText.canonical("ABCDEF01-2345-4678-9abc-DEF012345678") == "abcdef01-2345-4678-9abc-def012345678")
        #expect(UUIDText.canonical("abcdef01-2345-4678-9abc-def012345678") == "abcdef01-2345-4678-9abc-def012345678")
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
