import SwitchboardNATS
import Testing

/// The parser sees TCP's segments, which split frames anywhere: every way of
/// cutting a stream must give the events of the whole stream.
@Suite struct NATSParserSplitTests {
    /// Every verb, a reply subject, an empty payload and one holding CRLF.
    static let stream = Array(
        """
        INFO {"server_id":"NABC","max_payload":1048576}\r
        PING\r
        MSG chat.a 1 5\r
        hello\r
        MSG chat.b 22 _INBOX.x.y 0\r
        \r
        msg\tchat.c  3  9\r
        a\r
        PONG\r
        \r
        +OK\r
        -ERR 'Permissions Violation'\r
        PONG\r

        """.utf8)

    static let expected: [NATSEvent] = [
        .info(Array(#"{"server_id":"NABC","max_payload":1048576}"#.utf8)), .ping, msg("chat.a", 1, "hello"),
        msg("chat.b", 22, ""), msg("chat.c", 3, "a\r\nPONG\r\n"), .ok, .err("Permissions Violation"), .pong,
    ]

    @Test func wholeStream() throws {
        #expect(try parse(chunks: [Self.stream]) == Self.expected)
    }

    @Test func splitInTwoAtEveryByte() throws {
        let stream = Self.stream
        for cut in 0...stream.count {
            let events = try parse(chunks: [Array(stream[..<cut]), Array(stream[cut...])])
            #expect(events == Self.expected, "cut at \(cut)")
        }
    }

    @Test func splitInThreeAtEveryPairOfBytes() throws {
        let stream = Self.stream
        for first in 0...stream.count {
            for second in first...stream.count {
                let chunks = [Array(stream[..<first]), Array(stream[first..<second]), Array(stream[second...])]
                let events = try parse(chunks: chunks)
                if events != Self.expected {
                    Issue.record("cut at \(first) and \(second): \(events)")
                    return
                }
            }
        }
    }

    @Test func oneByteAtATime() throws {
        #expect(try parse(chunks: Self.stream.map { [$0] }) == Self.expected)
    }

    /// Many messages of varied sizes in chunks of random sizes, enough to
    /// make the parser drop consumed bytes from its buffer many times over.
    @Test func longStreamInRandomChunks() throws {
        var generator = SplitMix64(seed: 42)
        var stream: [UInt8] = []
        var expected: [NATSEvent] = []
        for index in 0..<3_000 {
            let payload = (0..<Int(generator.next() % 3000)).map { UInt8(truncatingIfNeeded: $0 &+ index) }
            stream += Array("MSG s.\(index) \(index) \(payload.count)\r\n".utf8) + payload + Array("\r\n".utf8)
            expected.append(.msg(subject: "s.\(index)", sid: UInt64(index), payload: payload))
            if index % 100 == 0 {
                stream += Array("PING\r\n".utf8)
                expected.append(.ping)
            }
        }
        var chunks: [[UInt8]] = []
        var offset = 0
        while offset < stream.count {
            let size = min(stream.count - offset, 1 + Int(generator.next() % 20_000))
            chunks.append(Array(stream[offset..<(offset + size)]))
            offset += size
        }
        let events = try parse(chunks: chunks)
        #expect(events.count == expected.count)
        #expect(events == expected)
    }

    @Test func aLargePayloadArrivingInSmallPieces() throws {
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let stream = Array("MSG big 1 \(payload.count)\r\n".utf8) + payload + Array("\r\nPING\r\n".utf8)
        let chunks = stride(from: 0, to: stream.count, by: 1500).map {
            Array(stream[$0..<min($0 + 1500, stream.count)])
        }
        #expect(try parse(chunks: chunks) == [.msg(subject: "big", sid: 1, payload: payload), .ping])
    }
}

/// A small deterministic generator: the same chunks on every run.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
