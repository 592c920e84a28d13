import SwitchboardNATS
import Testing

/// Every event parsed from `text` fed at once; throws the parser's error.
func parse(_ text: String, limits: NATSParser.Limits = NATSParser.Limits()) throws(NATSError) -> [NATSEvent] {
    try parse(chunks: [Array(text.utf8)], limits: limits)
}

func parse(chunks: [[UInt8]], limits: NATSParser.Limits = NATSParser.Limits()) throws(NATSError) -> [NATSEvent] {
    var parser = NATSParser(limits: limits)
    var events: [NATSEvent] = []
    for chunk in chunks {
        parser.feed(chunk)
        while let event = try parser.next() { events.append(event) }
    }
    return events
}

/// The kind of error `text` makes the parser throw, nil if none.
func failure(_ text: String, limits: NATSParser.Limits = NATSParser.Limits()) -> NATSError.Kind? {
    do {
        _ = try parse(text, limits: limits)
        return nil
    } catch {
        return error.kind
    }
}

func msg(_ subject: String, _ sid: UInt64, _ payload: String) -> NATSEvent {
    .msg(subject: subject, sid: sid, payload: Array(payload.utf8))
}

@Suite struct NATSParserTests {
    @Test func everyVerb() throws {
        let events = try parse(
            """
            INFO {"server_id":"S","max_payload":1048576}\r
            PING\r
            PONG\r
            +OK\r
            -ERR 'Unknown Protocol Operation'\r
            MSG chat.room.1 7 5\r
            hello\r

            """)
        #expect(
            events == [
                .info(Array(#"{"server_id":"S","max_payload":1048576}"#.utf8)), .ping, .pong, .ok,
                .err("Unknown Protocol Operation"), msg("chat.room.1", 7, "hello"),
            ])
    }

    @Test func verbsAreCaseInsensitive() throws {
        #expect(
            try parse("ping\r\nPoNg\r\n+ok\r\nmsg a 1 1\r\nx\r\ninfo {}\r\n-err 'x'\r\n") == [
                .ping, .pong, .ok, msg("a", 1, "x"), .info(Array("{}".utf8)), .err("x"),
            ])
    }

    @Test func msgWithReplySubjectKeepsSubjectSidAndPayload() throws {
        #expect(try parse("MSG orders.new 12 _INBOX.abc.def 3\r\nabc\r\n") == [msg("orders.new", 12, "abc")])
    }

    @Test func fieldsMayBeSeparatedByRunsOfSpacesAndTabs() throws {
        #expect(try parse("MSG \t a.b  \t 3 \t r  2 \r\nok\r\nPING \r\n") == [msg("a.b", 3, "ok"), .ping])
    }

    @Test func emptyPayloadAndPayloadHoldingLineBreaks() throws {
        #expect(try parse("MSG a 1 0\r\n\r\nMSG a 1 6\r\n\r\nPING\r\n") == [msg("a", 1, ""), msg("a", 1, "\r\nPING")])
    }

    @Test func binaryPayloadIsKeptByteForByte() throws {
        let payload: [UInt8] = Array(0...255)
        let frame = Array("MSG bin 9 256\r\n".utf8) + payload + Array("\r\n".utf8)
        #expect(try parse(chunks: [frame]) == [.msg(subject: "bin", sid: 9, payload: payload)])
    }

    @Test func bareLineFeedEndsAControlLine() throws {
        #expect(try parse("PING\nMSG a 1 2\nhi\r\n") == [.ping, msg("a", 1, "hi")])
    }

    @Test func errWithoutQuotesKeepsItsText() throws {
        #expect(try parse("-ERR Stale Connection\r\n-ERR\r\n") == [.err("Stale Connection"), .err("")])
    }

    @Test func nothingIsReturnedBeforeAFrameIsComplete() throws {
        var parser = NATSParser()
        parser.feed(Array("MSG a 1 5\r\nhel".utf8))
        #expect(try parser.next() == nil)
        parser.feed(Array("lo\r".utf8))
        #expect(try parser.next() == nil)
        parser.feed(Array("\nPI".utf8))
        #expect(try parser.next() == msg("a", 1, "hello"))
        #expect(try parser.next() == nil)
        #expect(parser.bufferedCount == 2)
    }

    // MARK: Limits

    @Test func aControlLineAtTheLimitIsAccepted() throws {
        let limits = NATSParser.Limits(maxLineBytes: 64, maxPayloadBytes: 16)
        let body = String(repeating: "x", count: 64 - "INFO \r\n".utf8.count)
        #expect(try parse("INFO \(body)\r\n", limits: limits) == [.info(Array(body.utf8))])
        #expect(failure("INFO \(body)x\r\n", limits: limits) == .limitExceeded)
    }

    @Test func anEndlessLineFailsOnceTheLimitArrived() throws {
        var parser = NATSParser(limits: NATSParser.Limits(maxLineBytes: 64, maxPayloadBytes: 16))
        parser.feed([UInt8](repeating: UInt8(ascii: "A"), count: 63))
        #expect(try parser.next() == nil)
        parser.feed([UInt8(ascii: "A")])
        #expect(throws: NATSError.self) { try parser.next() }
    }

    @Test func theDefaultLineLimitIsFourKilobytes() throws {
        #expect(failure(String(repeating: "A", count: 4096)) == .limitExceeded)
        #expect(try parse(String(repeating: "A", count: 4095)) == [])
    }

    @Test func aPayloadOverTheLimitFailsOnItsControlLine() throws {
        let limits = NATSParser.Limits(maxLineBytes: 64, maxPayloadBytes: 16)
        #expect(try parse("MSG a 1 16\r\n0123456789abcdef\r\n", limits: limits) == [msg("a", 1, "0123456789abcdef")])
        #expect(failure("MSG a 1 17\r\n", limits: limits) == .limitExceeded)
        #expect(failure("MSG a 1 \(8 << 20 + 1)\r\n") == .limitExceeded)
        #expect(failure("MSG a 1 99999999999999999999999\r\n") == .protocolViolation)
    }

    // MARK: Garbage

    @Test(arguments: [
        "HELLO\r\n",
        "\r\n",
        "HMSG a 1 0 2\r\n\r\n\r\n",
        "MSG a\r\n",
        "MSG a 1\r\n",
        "MSG a 1 r s 5\r\n",
        "MSG a one 5\r\nhello\r\n",
        "MSG a 1 -5\r\n",
        "MSG a 1 5x\r\n",
        "MSG a 1 3\r\nabcXY",
        "MSG a 1 3\r\nabc\nX",
        "PING now\r\n",
        "+OKAY\r\n",
        "INFO\r\n",
        "INFO   \r\n",
        "\u{1}\u{2}\u{3}\r\n",
    ])
    func garbageIsAProtocolViolation(_ text: String) {
        #expect(failure(text) == .protocolViolation)
    }

    @Test func errorsAreFinal() throws {
        var parser = NATSParser()
        parser.feed(Array("BOGUS\r\nPING\r\n".utf8))
        #expect(throws: NATSError.self) { try parser.next() }
        parser.feed(Array("PING\r\n".utf8))
        #expect(throws: NATSError.self) { try parser.next() }
    }

    @Test func eventsBeforeGarbageAreReturnedFirst() throws {
        var parser = NATSParser()
        parser.feed(Array("PING\r\nMSG a 1 1\r\nx\r\nBOGUS\r\n".utf8))
        #expect(try parser.next() == .ping)
        #expect(try parser.next() == msg("a", 1, "x"))
        #expect(throws: NATSError.self) { try parser.next() }
    }
}
