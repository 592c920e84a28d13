// libFuzzer target for the HTTP request parser. Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// The input is parsed whole and again split at a position taken from its first
// byte (and once more byte by byte for short inputs); every way must give the same
// requests and the same failure. Pipelined requests are followed to the end.
import SwitchboardHTTP

/// Small limits so that the fuzzer reaches every limit with short inputs.
private let limits = HTTPLimits(
    maxRequestLineBytes: 64, maxHeaderCount: 6, maxHeaderBytes: 256, maxBodyBytes: 128, maxChunkLineBytes: 32)

private enum Event: Equatable {
    case request(HTTPRequest)
    case failure(HTTPStatus)
}

/// Feeds the chunks to one parser the way a server does and records what comes out.
private func run(_ chunks: [UnsafeRawBufferPointer]) -> (events: [Event], partial: Bool) {
    var parser = HTTPRequestParser(limits: limits)
    var events: [Event] = []
    chunks: for chunk in chunks {
        var offset = 0
        while true {
            let rest = UnsafeRawBufferPointer(rebasing: chunk[offset...])
            let (consumed, result) = parser.parse(rest)
            precondition(consumed >= 0 && consumed <= rest.count, "consumed out of range")
            offset += consumed
            switch result {
            case .needMore:
                precondition(offset == chunk.count, "needMore left bytes unconsumed")
                continue chunks
            case .request(let request):
                precondition(!parser.hasPartialRequest, "partial flag left set after a request")
                precondition(request.body.count <= limits.maxBodyBytes, "body over the limit")
                precondition(request.headers.count <= limits.maxHeaderCount, "too many headers")
                // Exercise what the server will call on every request.
                _ = request.queryItems()
                _ = request.isUpgrade
                _ = HTTPResponse.error(.badRequest, code: request.path, message: request.target)
                    .serialize(keepAlive: request.keepAlive, headOnly: request.method == .head)
                events.append(.request(request))
                if offset == chunk.count { continue chunks }
                // A request that consumed nothing would loop forever.
                precondition(consumed > 0, "request without consuming bytes")
            case .failure(let status):
                precondition([400, 413, 414, 431, 501, 505].contains(status.code), "unexpected status \(status)")
                events.append(.failure(status))
                break chunks
            }
        }
    }
    return (events, parser.hasPartialRequest)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    let whole = run([input])

    let split = count == 0 ? 0 : Int(input[0]) % (count + 1)
    let halves = run([
        UnsafeRawBufferPointer(rebasing: input[..<split]), UnsafeRawBufferPointer(rebasing: input[split...]),
    ])
    precondition(halves.events == whole.events && halves.partial == whole.partial, "split at \(split) differs")

    if count <= 512 {
        let bytewise = run((0..<count).map { UnsafeRawBufferPointer(rebasing: input[$0..<($0 + 1)]) })
        precondition(bytewise.events == whole.events && bytewise.partial == whole.partial, "byte by byte differs")
    }
    return 0
}
