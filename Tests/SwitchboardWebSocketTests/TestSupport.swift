import SwitchboardDeflate
import SwitchboardWebSocket

/// Shared helpers for the WebSocket tests (not a test suite itself).

let testMaskKey: UInt32 = 0x3712_A5C9

/// A client frame, masked, built with raw control over every header bit so that
/// invalid frames can be produced too.
func clientFrame(
    _ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
    masked: Bool = true
) -> [UInt8] {
    var frame: [UInt8] = [
        (fin ? 0x80 : 0) | (rsv1 ? 0x40 : 0) | (rsv2 ? 0x20 : 0) | (rsv3 ? 0x10 : 0) | opcode
    ]
    let maskBit: UInt8 = masked ? 0x80 : 0
    if payload.count <= 125 {
        frame.append(maskBit | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        frame.append(maskBit | 126)
        frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
        frame.append(maskBit | 127)
        frame += (0..<8).reversed().map { UInt8(truncatingIfNeeded: payload.count >> ($0 * 8)) }
    }
    guard masked else { return frame + payload }
    let key = withUnsafeBytes(of: testMaskKey.littleEndian) { Array($0) }
    frame += key
    frame += payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
    return frame
}

func text(_ string: String, fin: Bool = true) -> [UInt8] { clientFrame(0x1, Array(string.utf8), fin: fin) }

/// What a session did with some input.
struct Transcript: Equatable, CustomStringConvertible {
    struct Message: Equatable {
        var opcode: WebSocketOpcode
        var payload: [UInt8]
    }
    var messages: [Message] = []
    /// Every byte the session asked to send, concatenated.
    var sent: [UInt8] = []
    var outcome: WebSocketReceiveOutcome = .open

    var description: String { "messages: \(messages.map { ($0.opcode, $0.payload.count) }) sent: \(sent) \(outcome)" }

    /// The frames the session sent, decoded (server frames are unmasked).
    var sentFrames: [(opcode: WebSocketOpcode, payload: [UInt8])] {
        var frames: [(WebSocketOpcode, [UInt8])] = []
        var bytes = sent
        var decoder = FrameDecoder(requireMask: false)
        var opcode = WebSocketOpcode.continuation
        var payload: [UInt8] = []
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while let event = try? decoder.next(raw, offset: &offset) {
                switch event {
                case .needMore: return
                case .header(let header):
                    opcode = header.opcode
                    payload = []
                case .payload(let chunk, let complete):
                    payload += chunk
                    if complete { frames.append((opcode, payload)) }
                }
            }
        }
        return frames
    }

    /// The status code of the close frame the session sent, if any (nil for none
    /// or an empty close body).
    var closeCode: UInt16? {
        guard let close = sentFrames.first(where: { $0.opcode == .close }), close.payload.count >= 2 else { return nil }
        return UInt16(close.payload[0]) << 8 | UInt16(close.payload[1])
    }

    var sentClose: Bool { sentFrames.contains { $0.opcode == .close } }
}

func makeSession(
    maxMessageBytes: Int = 65536, maxFrameBytes: Int? = nil, deflate: DeflateParameters? = nil,
    deflateConfiguration: DeflateConfiguration = DeflateConfiguration(), sharedDeflaters: SharedDeflaters? = nil
) -> WebSocketSession {
    WebSocketSession(
        configuration: WebSocketConfiguration(maxMessageBytes: maxMessageBytes, maxFrameBytes: maxFrameBytes),
        deflate: deflate, deflateConfiguration: deflateConfiguration, sharedDeflaters: sharedDeflaters)
}

/// Feeds `chunks` to `session` as separate reads and records what happens.
@discardableResult
func feed(_ session: WebSocketSession, _ chunks: [[UInt8]], into transcript: inout Transcript) -> Transcript {
    for chunk in chunks {
        var bytes = chunk
        let outcome = bytes.withUnsafeMutableBytes { raw in
            session.receive(
                raw,
                onMessage: { transcript.messages.append(.init(opcode: $0, payload: Array($1))) },
                send: { transcript.sent += $0 })
        }
        transcript.outcome = outcome
    }
    return transcript
}

func run(_ chunks: [[UInt8]], session: WebSocketSession = makeSession()) -> Transcript {
    var transcript = Transcript()
    return feed(session, chunks, into: &transcript)
}

/// Every way to cut `input` into two reads, plus one byte per read. Long inputs
/// are cut at every offset within their first and last 300 bytes (where the
/// headers are) and at a stride in between, to keep the tests fast.
func splits(of input: [UInt8]) -> [[[UInt8]]] {
    let offsets = (0...input.count).filter { $0 <= 300 || $0 >= input.count - 300 || $0 % 997 == 0 }
    var result = offsets.map { [Array(input[..<$0]), Array(input[$0...])] }
    if input.count <= 4096 { result.append(input.map { [$0] }) }
    return result
}

/// Compresses like a permessage-deflate client would.
func compress(_ deflater: MessageDeflater, _ message: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    try! message.withUnsafeBytes { try deflater.deflate($0, into: &out) }
    return out
}
