import SwitchboardHTTP
import Testing

/// What a parser produced from a byte stream: the requests and the failure, in
/// order, and whether a request was left half-received at the end.
struct FeedResult: Equatable, Sendable, CustomStringConvertible {
    enum Event: Equatable, Sendable {
        case request(HTTPRequest)
        case failure(HTTPStatus)
        /// The head of a streamed request.
        case head(HTTPRequest, HTTPStreamedBody)
        /// A streamed body's pieces joined: at its end, or what had come when
        /// the input stopped or failed (`complete` false).
        case streamedBody([UInt8], complete: Bool)
    }

    var events: [Event]
    var partial: Bool

    var description: String {
        let parts = events.map { event -> String in
            switch event {
            case .request(let r): "request(\(r.method) \(r.target) \(r.headers.count) headers, \(r.body.count) bytes)"
            case .failure(let status): "failure(\(status))"
            case .head(let r, let body): "head(\(r.method) \(r.target), \(body))"
            case .streamedBody(let b, let complete): "body(\(b.count) bytes\(complete ? "" : ", incomplete"))"
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
/// With `streamed`, the bodies of the requests it gives a limit are streamed.
func feed(
    _ chunks: [[UInt8]], limits: HTTPLimits = HTTPLimits(),
    streamed: (@Sendable (HTTPMethod, String) -> Int?)? = nil
) -> FeedResult {
    var parser = HTTPRequestParser(limits: limits)
    parser.streamedBodyLimit = streamed
    var events: [FeedResult.Event] = []
    var body: [UInt8]?
    chunks: for chunk in chunks {
        var offset = 0
        while offset < chunk.count || parser.isBodyEndPending {
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
            case .head(let request, let framing):
                #expect(body == nil, "a head inside a streamed body")
                #expect(request.body.isEmpty && parser.hasPartialRequest && parser.isStreamingBody)
                events.append(.head(request, framing))
                body = []
            case .body(let range):
                // The piece is the last bytes just consumed, in place.
                let base = offset - consumed
                #expect(!range.isEmpty && range.lowerBound >= 0 && base + range.upperBound == offset)
                #expect(body != nil, "a body piece outside a streamed body")
                body? += chunk[(base + range.lowerBound)..<(base + range.upperBound)]
            case .end:
                #expect(body != nil, "an end outside a streamed body")
                events.append(.streamedBody(body ?? [], complete: true))
                body = nil
                #expect(!parser.hasPartialRequest && !parser.isStreamingBody)
            case .failure(let status):
                if let partial = body { events.append(.streamedBody(partial, complete: false)) }
                body = nil
                events.append(.failure(status))
                // A failed parser stays failed and takes nothing more.
                let again = parser.parse([0x41])
                #expect(again.consumed == 0 && again.result == .failure(status))
                break chunks
            }
        }
    }
    if let partial = body { events.append(.streamedBody(partial, complete: false)) }
    return FeedResult(events: events, partial: parser.hasPartialRequest)
}

func feed(
    _ input: [UInt8], limits: HTTPLimits = HTTPLimits(), streamed: (@Sendable (HTTPMethod, String) -> Int?)? = nil
) -> FeedResult {
    feed([input], limits: limits, streamed: streamed)
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
