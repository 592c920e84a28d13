import SwitchboardAttachments
import SwitchboardChat
import SwitchboardCluster
import Testing

/// A message's attachments cross the bus as the stored list (no URLs: each
/// node signs its own), so another node fans out the same objects.
@Suite struct AttachmentBusCodecTests {
    private let photo = AttachmentObject(
        id: "0f3c0000-0000-4000-8000-000000000001", filename: "receipt \"1\".png", contentType: "image/png",
        size: 48_213, sha256: String(repeating: "9b", count: 32), width: 800, height: 600, hasThumbnail: true)
    private let notes = AttachmentObject(
        id: "0f3c0000-0000-4000-8000-000000000002", filename: "notes.txt", contentType: "text/plain", size: 12,
        sha256: String(repeating: "0f", count: 32))

    private func message(_ seq: Int64, meta: String? = nil, attachments: [AttachmentObject]) -> ChatMessage {
        ChatMessage(
            id: "01a2075b-fde4-7715-a317-70e0e101cf5\(seq)", sessionID: "aaaaaaaa-0000-4000-8000-000000000001",
            seq: seq, clientMessageID: "c\(seq)", kind: "text", body: "",
            sender: Participant(id: "v-1", role: "visitor", name: nil),
            createdAt: "2026-11-23T08:00:00.000Z", meta: meta, attachments: attachments)
    }

    private func roundTrip(_ event: BusEvent) throws -> BusEvent {
        var encoder = BusEncoder(node: "node-a")
        return try BusDecoder.decode(encoder.encode(event)).event
    }

    @Test func aMessagesAttachmentsSurviveTheTripInOrder() throws {
        let batch = BusEvent.committed(
            messages: [
                message(1, attachments: []), message(2, attachments: [notes, photo]),
                message(3, meta: #"{"action":"x"}"#, attachments: [photo]),
            ], sessions: [])
        #expect(try roundTrip(batch) == batch)
    }

    @Test func aPlainMessageIsWrittenAsBefore() {
        var encoder = BusEncoder(node: "node-a")
        let text = String(
            decoding: encoder.encode(.committed(messages: [message(1, attachments: [])], sessions: [])), as: UTF8.self)
        #expect(
            text.hasSuffix(#","2026-11-23T08:00:00.000Z",null]]}"#),
            "eleven fields, as a node of the version before reads")
    }

    @Test func attachmentsThatAreNotAStoredListAreAnError() {
        let row = { (attachments: String) in
            #"{"v":1,"n":"a","t":"m","m":[["i","s",2,"c","text","","visitor","v",null,"2026-11-23T08:00:00.000Z",null,null,\#(attachments)]]}"#
        }
        for bad in [#""not json""#, #""[{\"id\":\"x\"}]""#, "[]", "7"] {
            #expect(throws: BusDecodeError.self, "\(bad)") { try BusDecoder.decode(Array(row(bad).utf8)) }
        }
        #expect((try? BusDecoder.decode(Array(row(#""[]""#).utf8))) != nil, "an empty list is no attachments")
    }
}
