import SwitchboardHTTP
import Testing

/// What a parser produced from a byte stream: the requests and the failure, in
/// order, and whether a request was left half-received at the end.
struct FeedResult: Equatable, Sendable, CustomStringConvertible {
    enum Event: Equatable, Sendable {
        case request(HTTPRequest)
        case failure(HTTPStatus)
    }

    var events: [Event]
    var partial: Bool

    var description: String {
        let parts = events.map { event -> String in
            switch event {
            case .request(let r): "request(\(r.method) \(r.target) \(r.headers.count) headers, \(r.body.count) bytes)"
            case .failure(let status): "failure(\(status))"
            }
        }
        return "[\(parts.joined(separator: ", "))] partial=\(partial)"
    }

    var requests: [HTTPRequest] {
        events.compactMap { if case .request(let r) = $0 { r } else { nil } }
    }

    var failure: HTTPStatus? {
        events.compactMap { if case .failure(let s) = $0 { s } else { nil } }.first
    }
}

/// Bytes of a string; requests in tests spell out their "\r\n".
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Feeds the chunks in order to one parser, the way a server does: after each
/// request the rest of the same chunk is parsed again; a failure ends the stream.
func feed(_ chunks: [[UInt8]], limits: HTTPLimits = HTTPLimits()) -> FeedResult {
    var parser = HTTPRequestParser(limits: limits)
    var events: [FeedResult.Event] = []
    chunks: for chunk in chunks {
        var offset = 0
        while true {
            let (consumed, result) = chunk.withUnsafeBytes { raw in
                parser.parse(UnsafeRawBufferPointer(rebasing: raw[offset...]))
            }
            #expect(consumed >= 0 && consumed <= chunk.count - offset)
            offset += consumed
            switch result {
            case .request(let request):
                events.append(.request(request))
                #expect(!parser.hasPartialRequest, "a completed request leaves nothing partial")
                if offset == chunk.count { continue chunks }
            case .needMore:
                #expect(offset == chunk.count, "needMore must consume every byte")
                continue chunks
            case .failure(let status):
                events.append(.failure(status))
                // A failed parser stays failed and takes nothing more.
                let again = parser.parse([0x41])
                #expect(again.consumed == 0 && again.result == .failure(status))
                break chunks
            }
        }
    }
    return FeedResult(events: events, partial: parser.hasPartialRequest)
}

func feed(_ input: [UInt8], limits: HTTPLimits = HTTPLimits()) -> FeedResult {
    feed([input], limits: limits)
}

func feed(_ text: String, limits: HTTPLimits = HTTPLimits()) -> FeedResult {
    feed([bytes(text)], limits: limits)
}

/// Every way the harness splits an input: at each offset in two, one byte at a
/// time, and a few irregular chunkings.
func splits(of input: [UInt8]) -> [(label: String, chunks: [[UInt8]])] {
    var result: [(String, [[UInt8]])] = []
    for offset in 0...input.count {
        result.append(("split at \(offset)", [Array(input[..<offset]), Array(input[offset...])]))
    }
    result.append(("byte by byte", input.map { [$0] }))
    for seed in 1...4 {
        var generator = SplitMix(seed: UInt64(seed))
        var chunks: [[UInt8]] = []
        var start = 0
        while start < input.count {
            let length = min(input.count - start, Int(generator.next() % 7))
            chunks.append(Array(input[start..<(start + length)]))
            start += length
        }
        result.append(("irregular chunks, seed \(seed)", chunks))
    }
    return result
}

/// A tiny deterministic generator so the irregular splits are reproducible.
struct SplitMix: RandomNumberGenerator {
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
