import SwitchboardChat
import Testing

@Suite struct ClientFrameDecoderTests {
    @Test func hello() {
        let request = accepted(#"{"type":"hello","token":"abc.def.ghi"}"#)
        #expect(request == ClientRequest(ref: nil, frame: .hello(token: "abc.def.ghi")))
        let withRef = accepted(#"{"ref":"r0","type":"hello","token":"t"}"#)
        #expect(withRef == ClientRequest(ref: "r0", frame: .hello(token: "t")))
    }

    @Test func presenceSet() {
        #expect(
            accepted(#"{"type":"presence.set","ref":"p1","status":"online"}"#)
                == ClientRequest(ref: "p1", frame: .presenceSet(status: .online)))
        #expect(accepted(#"{"type":"presence.set","status":"away"}"#)?.frame == .presenceSet(status: .away))
        #expect(accepted(#"{"type":"presence.set","status":"offline"}"#)?.frame == .presenceSet(status: .offline))
        for bad in [
            #"{"type":"presence.set"}"#, #"{"type":"presence.set","status":"busy"}"#,
            #"{"type":"presence.set","status":1}"#, #"{"type":"presence.set","ref":"p2","status":"Online"}"#,
        ] {
            #expect(refused(bad)?.code == .badRequest, "\(bad)")
        }
    }

    @Test func sessionCreate() {
        #expect(accepted(#"{"type":"session.create"}"#)?.frame == .sessionCreate(title: nil))
        #expect(accepted(#"{"type":"session.create","title":null}"#)?.frame == .sessionCreate(title: nil))
        #expect(
            accepted(#"{"type":"session.create","ref":"r1","title":"Order question"}"#)
                == ClientRequest(ref: "r1", frame: .sessionCreate(title: "Order question")))
        let longest = String(repeating: "t", count: 200)
        #expect(accepted(#"{"type":"session.create","title":"\#(longest)"}"#)?.frame == .sessionCreate(title: longest))
    }

    @Test func join() {
        #expect(
            accepted(#"{"type":"join","session_id":"\#(sessionUUID)"}"#)?.frame
                == .join(sessionID: sessionUUID, sinceSeq: nil))
        #expect(
            accepted(#"{"type":"join","session_id":"\#(sessionUUID)","since_seq":null}"#)?.frame
                == .join(sessionID: sessionUUID, sinceSeq: nil))
        #expect(
            accepted(#"{"type":"join","ref":"r2","session_id":"\#(sessionUUID)","since_seq":57}"#)
                == ClientRequest(ref: "r2", frame: .join(sessionID: sessionUUID, sinceSeq: 57)))
        #expect(
            accepted(#"{"type":"join","session_id":"\#(sessionUUID)","since_seq":0}"#)?.frame
                == .join(sessionID: sessionUUID, sinceSeq: 0))
    }

    @Test func sessionIDIsLowerCased() {
        let upper = sessionUUID.uppercased()
        #expect(accepted(#"{"type":"leave","session_id":"\#(upper)"}"#)?.frame == .leave(sessionID: sessionUUID))
        let mixed = "9F0E1a2b-3C4d-4e5F-8A9b-0c1D2e3F4a5B"
        #expect(accepted(#"{"type":"leave","session_id":"\#(mixed)"}"#)?.frame == .leave(sessionID: sessionUUID))
    }

    @Test func leave() {
        #expect(
            accepted(#"{"type":"leave","ref":"x","session_id":"\#(sessionUUID)"}"#)
                == ClientRequest(ref: "x", frame: .leave(sessionID: sessionUUID)))
    }

    @Test func send() {
        #expect(
            accepted(#"{"type":"send","session_id":"\#(sessionUUID)","client_msg_id":"c1","body":"Hello"}"#)
                == ClientRequest(
                    ref: nil, frame: .send(sessionID: sessionUUID, clientMessageID: "c1", body: "Hello", kind: "text")))
        let full =
            #"{"ref":"r3","type":"send","session_id":"\#(sessionUUID)","client_msg_id":"c2","body":"Hi","kind":"file.v2_x-1"}"#
        #expect(
            accepted(full)
                == ClientRequest(
                    ref: "r3",
                    frame: .send(sessionID: sessionUUID, clientMessageID: "c2", body: "Hi", kind: "file.v2_x-1")))
        let nullKind = #"{"type":"send","session_id":"\#(sessionUUID)","client_msg_id":"c","body":"b","kind":null}"#
        #expect(
            accepted(nullKind)?.frame
                == .send(sessionID: sessionUUID, clientMessageID: "c", body: "b", kind: "text"))
        let escaped = #"{"type":"send","session_id":"\#(sessionUUID)","client_msg_id":"c","body":"a\nb\u00e9"}"#
        #expect(
            accepted(escaped)?.frame
                == .send(sessionID: sessionUUID, clientMessageID: "c", body: "a\nb\u{e9}", kind: "text"))
    }

    @Test func sendLimitsAtTheirBoundaries() {
        let id128 = String(repeating: "i", count: 128)
        let kind32 = String(repeating: "k", count: 32)
        let frame =
            #"{"type":"send","session_id":"\#(sessionUUID)","client_msg_id":"\#(id128)","body":"b","kind":"\#(kind32)"}"#
        #expect(
            accepted(frame)?.frame == .send(sessionID: sessionUUID, clientMessageID: id128, body: "b", kind: kind32))
    }

    @Test func bodyAtExactlyTheLimitIsAccepted() {
        let body = String(repeating: "a", count: 16)
        let frame = #"{"type":"send","session_id":"\#(sessionUUID)","client_msg_id":"c","body":"\#(body)"}"#
        #expect(accepted(frame)?.frame == .send(sessionID: sessionUUID, clientMessageID: "c", body: body, kind: "text"))
        // Eight two-byte characters: 8 characters, 16 bytes.
        let wide = String(repeating: "\u{e9}", count: 8)
        let wideFrame = #"{"type":"send","session_id":"\#(sessionUUID)","client_msg_id":"c","body":"\#(wide)"}"#
        #expect(
            accepted(wideFrame)?.frame == .send(sessionID: sessionUUID, clientMessageID: "c", body: wide, kind: "text"))
    }

    @Test func typing() {
        #expect(
            accepted(#"{"type":"typing","session_id":"\#(sessionUUID)","state":true}"#)?.frame
                == .typing(sessionID: sessionUUID, state: true))
        #expect(
            accepted(#"{"type":"typing","ref":"t","session_id":"\#(sessionUUID)","state":false}"#)
                == ClientRequest(ref: "t", frame: .typing(sessionID: sessionUUID, state: false)))
    }

    @Test func read() {
        #expect(
            accepted(#"{"type":"read","session_id":"\#(sessionUUID)","seq":58}"#)?.frame
                == .read(sessionID: sessionUUID, seq: 58))
        #expect(
            accepted(#"{"type":"read","ref":"rd","session_id":"\#(sessionUUID)","seq":0}"#)
                == ClientRequest(ref: "rd", frame: .read(sessionID: sessionUUID, seq: 0)))
        #expect(
            accepted(#"{"type":"read","session_id":"\#(sessionUUID)","seq":9223372036854775807}"#)?.frame
                == .read(sessionID: sessionUUID, seq: .max))
    }

    @Test func inboxSubscribe() {
        #expect(accepted(#"{"type":"inbox.subscribe"}"#) == ClientRequest(ref: nil, frame: .inboxSubscribe))
        #expect(accepted(#"{"type":"inbox.subscribe","ref":"i"}"#) == ClientRequest(ref: "i", frame: .inboxSubscribe))
    }

    @Test func sessionAssign() {
        #expect(
            accepted(#"{"type":"session.assign","session_id":"\#(sessionUUID)"}"#)?.frame
                == .sessionAssign(sessionID: sessionUUID, operatorID: nil))
        #expect(
            accepted(#"{"type":"session.assign","session_id":"\#(sessionUUID)","operator_id":null}"#)?.frame
                == .sessionAssign(sessionID: sessionUUID, operatorID: nil))
        #expect(
            accepted(#"{"type":"session.assign","ref":"a","session_id":"\#(sessionUUID)","operator_id":"op-7"}"#)
                == ClientRequest(ref: "a", frame: .sessionAssign(sessionID: sessionUUID, operatorID: "op-7")))
    }

    @Test func sessionClose() {
        #expect(
            accepted(#"{"type":"session.close","ref":"c","session_id":"\#(sessionUUID)"}"#)
                == ClientRequest(ref: "c", frame: .sessionClose(sessionID: sessionUUID)))
    }

    @Test func ping() {
        #expect(accepted(#"{"type":"ping"}"#) == ClientRequest(ref: nil, frame: .ping))
        #expect(accepted(#" {"type":"ping","ref":"p"} "#) == ClientRequest(ref: "p", frame: .ping))
    }

    @Test func refLimits() {
        let ref128 = String(repeating: "r", count: 128)
        #expect(accepted(#"{"type":"ping","ref":"\#(ref128)"}"#)?.ref == ref128)
        #expect(accepted(#"{"type":"ping","ref":null}"#) == ClientRequest(ref: nil, frame: .ping))
        #expect(accepted(#"{"type":"ping","ref":""}"#) == ClientRequest(ref: "", frame: .ping))
    }

    @Test func unknownFieldsAreIgnored() {
        let frame = #"{"type":"leave","session_id":"\#(sessionUUID)","future":{"nested":[1,2,{"x":null}]},"v":2}"#
        #expect(accepted(frame)?.frame == .leave(sessionID: sessionUUID))
    }

    @Test func unsafeBufferEntryPoint() {
        let bytes = Array(#"{"type":"ping","ref":"u"}"#.utf8)
        let result = bytes.withUnsafeBytes { ClientFrameDecoder.decode($0, limits: testLimits) }
        #expect(result == .success(ClientRequest(ref: "u", frame: .ping)))
    }
}
