// libFuzzer target for the HTTP request parser. Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// The input is parsed whole and again split at a position taken from its first
// byte (and once more byte by byte for short inputs); every way must give the same
// requests and the same failure. Pipelined requests are followed to the end.
// Each way runs three times: bodies buffered, bodies of some paths streamed (the
// server's mode for uploads), and every body streamed, which joined again must
// give exactly what buffering gives.
import SwitchboardHTTP

/// Small limits so that the fuzzer reaches every limit with short inputs.
private let limits = HTTPLimits(
    maxRequestLineBytes: 64, maxHeaderCount: 6, maxHeaderBytes: 256, maxBodyBytes: 128, maxChunkLineBytes: 32)

/// Streams the bodies of paths with an "s" in them, held to a smaller limit than buffered bodies.
private let streamSome: @Sendable (HTTPMethod, String) -> Int? = { _, path in path.utf8.contains(0x73) ? 96 : nil }
/// Streams every body, held to the buffered limit.
private let streamAll: @Sendable (HTTPMethod, String) -> Int? = { _, _ in limits.maxBodyBytes }

private enum Event: Equatable {
    case request(HTTPRequest)
    case failure(HTTPStatus)
    case head(HTTPRequest, HTTPStreamedBody)
    /// A streamed body's pieces joined; `complete` at its end.
    case body([UInt8], complete: Bool)
}

private struct Outcome: Equatable {
    var events: [Event]
    var partial: Bool
}

/// Feeds the chunks to one parser the way a server does and records what comes out.
private func run(
    _ chunks: [UnsafeRawBufferPointer], streamed: (@Sendable (HTTPMethod, String) -> Int?)?
) -> Outcome {
    var parser = HTTPRequestParser(limits: limits)
    parser.streamedBodyLimit = streamed
    var events: [Event] = []
    var body: [UInt8]?
    var bodyLimit = 0
    chunks: for chunk in chunks {
        var offset = 0
        while offset < chunk.count || parser.isBodyEndPending {
            let rest = UnsafeRawBufferPointer(rebasing: chunk[offset...])
            let (consumed, result) = parser.parse(rest)
            precondition(consumed >= 0 && consumed <= rest.count, "consumed out of range")
            offset += consumed
            switch result {
            case .needMore:
                precondition(offset == chunk.count, "needMore left bytes unconsumed")
                continue chunks
            case .request(let request):
                precondition(body == nil, "a whole request inside a streamed body")
                precondition(!parser.hasPartialRequest, "partial flag left set after a request")
                precondition(request.body.count <= limits.maxBodyBytes, "body over the limit")
                precondition(request.headers.count <= limits.maxHeaderCount, "too many headers")
                exercise(request)
                events.append(.request(request))
                if offset == chunk.count { continue chunks }
                // A request that consumed nothing would loop forever.
                precondition(consumed > 0, "request without consuming bytes")
            case .head(let request, let framing):
                precondition(body == nil && parser.isStreamingBody, "a head inside a streamed body")
                precondition(request.body.isEmpty && request.headers.count <= limits.maxHeaderCount)
                let limit = streamed?(request.method, request.path)
                precondition(limit != nil, "a head for a request that is not streamed")
                bodyLimit = limit ?? 0
                if case .length(let length) = framing { precondition(length <= bodyLimit, "declared over the limit") }
                exercise(request)
                events.append(.head(request, framing))
                body = []
                precondition(consumed > 0, "head without consuming bytes")
            case .body(let range):
                precondition(body != nil, "a piece outside a streamed body")
                precondition(!range.isEmpty && range.lowerBound >= 0 && range.upperBound == consumed, "piece range")
                body! += rest[range]
                precondition(body!.count <= bodyLimit, "streamed body over its limit")
            case .end:
                precondition(body != nil && !parser.hasPartialRequest, "an end outside a streamed body")
                events.append(.body(body!, complete: true))
                body = nil
            case .failure(let status):
                precondition([400, 413, 414, 431, 501, 505].contains(status.code), "unexpected status \(status)")
                if let partial = body { events.append(.body(partial, complete: false)) }
                body = nil
                events.append(.failure(status))
                break chunks
            }
        }
    }
    if let partial = body { events.append(.body(partial, complete: false)) }
    return Outcome(events: events, partial: parser.hasPartialRequest)
}

/// What the server calls on every request.
private func exercise(_ request: HTTPRequest) {
    _ = request.queryItems()
    _ = request.isUpgrade
    _ = HTTPResponse.error(.badRequest, code: request.path, message: request.target)
        .serialize(keepAlive: request.keepAlive, headOnly: request.method == .head)
}

/// Streamed events with each head and its complete body joined into one request.
private func joined(_ outcome: Outcome) -> Outcome {
    var events: [Event] = []
    var head: HTTPRequest?
    for event in outcome.events {
        switch event {
        case .head(let request, _): head = request
        case .body(let bytes, let complete):
            if complete, var request = head {
                request.body = bytes
                events.append(.request(request))
            }
            head = nil
        case .request, .failure: events.append(event)
        }
    }
    return Outcome(events: events, partial: outcome.partial)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let split = count == 0 ? 0 : Int(input[0]) % (count + 1)
    let halves = [UnsafeRawBufferPointer(rebasing: input[..<split]), UnsafeRawBufferPointer(rebasing: input[split...])]
    let bytewise = count <= 512 ? (0..<count).map { UnsafeRawBufferPointer(rebasing: input[$0..<($0 + 1)]) } : nil

    var buffered: Outcome?
    for (mode, streamed) in [("buffered", nil), ("some streamed", streamSome), ("all streamed", streamAll)] {
        let whole = run([input], streamed: streamed)
        precondition(run(halves, streamed: streamed) == whole, "\(mode): split at \(split) differs")
        if let bytewise {
            precondition(run(bytewise, streamed: streamed) == whole, "\(mode): byte by byte differs")
        }
        if streamed == nil {
            buffered = whole
        } else if mode == "all streamed" {
            precondition(joined(whole) == buffered, "streaming every body differs from buffering")
        }
    }
    return 0
}
