/// An incremental HTTP/1.1 request parser (RFC 9112), one per connection, owned by
/// the thread that reads that connection.
///
/// The head is processed a line at a time as lines complete, so each byte is
/// scanned for the line end once, and limits are checked on the partial line too:
/// an over-long request line or header section fails before its end arrives. Only
/// the current partial line is buffered (bounded by the limits); finished header
/// fields are already Strings, and body bytes go straight into the body.
///
/// Feeding the same bytes split at any offsets gives the same results: every check
/// made on a partial line is one that the complete line would fail as well, and it
/// is made in the same order as on the complete line.
///
/// A request whose body the caller wants as a stream (`streamedBodyLimit`) is
/// handed out as its head, then its body in pieces that point into the bytes
/// given (never copied, whatever the framing), then its end: an upload of any
/// size costs the parser nothing more than a head.
public struct HTTPRequestParser: Sendable {
    enum Phase: Sendable {
        case requestLine
        case headers
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        /// The CRLF that ends each chunk's data (RFC 9112 7.1).
        case chunkDataEnd
        case trailers
        /// A streamed body has been handed out whole; `.end` is next.
        case streamEnd
        case failed(HTTPStatus)
    }

    enum LineOutcome {
        case proceed
        case complete
        /// The head of a streamed request is complete.
        case head(HTTPStreamedBody)
        case fail(HTTPStatus)
    }

    public let limits: HTTPLimits
    /// Asked once per request, when its head is complete: the largest body the
    /// request may have if its body is to be streamed, nil to receive it whole
    /// (held to `limits.maxBodyBytes`). A streamed request whose Content-Length
    /// is over its limit fails (413) before a byte of its body is consumed; a
    /// chunked one fails at the chunk that would take it over.
    public var streamedBodyLimit: (@Sendable (_ method: HTTPMethod, _ path: String) -> Int?)?
    var phase: Phase = .requestLine
    /// The body of the current request is handed out in pieces, not kept.
    var streaming = false
    /// The streamed body's limit, and its bytes announced so far (chunk sizes).
    var streamLimit = 0
    var streamedBytes = 0
    /// The line being received when a read ended in its middle; never holds a LF.
    private var lineBuffer: [UInt8] = []
    private var started = false
    var request = PartialRequest()
    /// Bytes searched for a line end so far: each byte of a head once, however
    /// the reads split it (the tests hold the parser to that).
    private(set) var lineEndSearchBytes = 0

    public init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
    }

    /// True once any byte of a request has arrived and the request is not complete
    /// yet: the server's cue to run the header-arrival (slowloris) timeout.
    public var hasPartialRequest: Bool { started }

    /// A streamed body is complete and its `.end` is still to be collected:
    /// call `parse` even with no bytes.
    public var isBodyEndPending: Bool {
        if case .streamEnd = phase { return true }
        return false
    }

    /// Between a streamed request's `.head` and its `.end` (or failure).
    public var isStreamingBody: Bool { streaming }

    /// What has arrived of the head being received, or of the head that has
    /// just failed (a streamed request's 413): what a refusal is answered and
    /// counted under. Nil before a request line, and once a head is handed out.
    public func headSoFar() -> HTTPRequest? {
        request.target.isEmpty ? nil : request.build()
    }

    /// Consumes bytes; returns how many it consumed and the result.
    ///
    /// On `.request` the bytes after the request were not consumed: call again with
    /// them for a pipelined request, or hand them to the new protocol after an
    /// Upgrade. On `.needMore` every byte was consumed. After `.failure` the parser
    /// stays failed and consumes nothing more.
    public mutating func parse(_ bytes: UnsafeRawBufferPointer) -> (consumed: Int, result: HTTPParseResult) {
        bytes.withMemoryRebound(to: UInt8.self) { parse(bytes: $0) }
    }

    /// Convenience for callers holding an array.
    public mutating func parse(_ bytes: [UInt8]) -> (consumed: Int, result: HTTPParseResult) {
        bytes.withUnsafeBytes { parse($0) }
    }

    private mutating func parse(bytes: UnsafeBufferPointer<UInt8>) -> (consumed: Int, result: HTTPParseResult) {
        var index = 0
        while true {
            let available = bytes.count - index
            switch phase {
            case .failed(let status):
                return (index, .failure(status))

            case .fixedBody(let remaining):
                let take = min(remaining, available)
                if streaming {
                    guard take > 0 else { return (index, .needMore) }
                    phase = take == remaining ? .streamEnd : .fixedBody(remaining: remaining - take)
                    index += take
                    return (index, .body((index - take)..<index))
                }
                request.body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + take)]))
                index += take
                if take == remaining { return (index, .request(finishRequest())) }
                phase = .fixedBody(remaining: remaining - take)
                return (index, .needMore)

            case .chunkData(let remaining):
                guard available > 0 else { return (index, .needMore) }
                let take = min(remaining, available)
                phase = take == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - take)
                if streaming {
                    index += take
                    return (index, .body((index - take)..<index))
                }
                request.body.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<(index + take)]))
                index += take

            case .streamEnd:
                // The trailer section was counted into `request` after the head left:
                // the next request starts from nothing, as after a buffered one.
                request = PartialRequest()
                phase = .requestLine
                started = false
                streaming = false
                return (index, .end)

            case .requestLine, .headers, .chunkSize, .chunkDataEnd, .trailers:
                guard available > 0 else { return (index, .needMore) }
                started = true
                let rest = UnsafeBufferPointer(rebasing: bytes[index...])
                let found = rest.firstIndex(of: HTTPSyntax.lf)
                lineEndSearchBytes &+= found.map { $0 + 1 } ?? rest.count
                guard let lineFeed = found else {
                    // The line continues in a later read: fail now if it already
                    // cannot fit, otherwise keep it.
                    if let status = partialLineFailure(rest) { return fail(status, consumed: index) }
                    lineBuffer.append(contentsOf: rest)
                    return (bytes.count, .needMore)
                }
                let outcome: LineOutcome
                if lineBuffer.isEmpty {
                    // The common case: the whole line is in this read, no copy.
                    outcome = processLine(UnsafeBufferPointer(rebasing: rest[..<lineFeed]))
                } else {
                    var line: [UInt8] = []
                    swap(&line, &lineBuffer)
                    line.append(contentsOf: rest[..<lineFeed])
                    outcome = line.withUnsafeBufferPointer { processLine($0) }
                    line.removeAll(keepingCapacity: true)
                    swap(&line, &lineBuffer)
                }
                index += lineFeed + 1
                switch outcome {
                case .proceed: continue
                case .complete:
                    if streaming {
                        phase = .streamEnd  // the trailers of a streamed chunked body
                        continue
                    }
                    return (index, .request(finishRequest()))
                case .head(let framing): return (index, .head(takeHead(), body: framing))
                case .fail(let status): return fail(status, consumed: index)
                }
            }
        }
    }

    private mutating func fail(_ status: HTTPStatus, consumed: Int) -> (consumed: Int, result: HTTPParseResult) {
        phase = .failed(status)
        streaming = false
        lineBuffer = []
        return (consumed, .failure(status))
    }

    /// A line without its LF; a CR before the LF is still there. RFC 9112 2.2
    /// permits a bare LF as the line terminator, so the CR is optional.
    private mutating func processLine(_ line: UnsafeBufferPointer<UInt8>) -> LineOutcome {
        switch phase {
        case .requestLine: return parseRequestLine(line)
        case .headers: return parseFieldLine(line, inTrailers: false)
        case .trailers: return parseFieldLine(line, inTrailers: true)
        case .chunkSize: return parseChunkSizeLine(line)
        case .chunkDataEnd:
            // RFC 9112 7.1: chunk-data is followed by exactly CRLF.
            guard Self.content(of: line).isEmpty else { return .fail(.badRequest) }
            phase = .chunkSize
            return .proceed
        case .fixedBody, .chunkData, .streamEnd, .failed:
            preconditionFailure("processLine outside a line phase")
        }
    }

    /// The checks that a line still without its LF already fails, whatever follows.
    /// Each mirrors the first check that the complete line gets, so a request split
    /// anywhere fails with the same status as the request whole.
    private func partialLineFailure(_ rest: UnsafeBufferPointer<UInt8>) -> HTTPStatus? {
        let length = lineBuffer.count + rest.count
        let first = lineBuffer.first ?? rest[0]
        // A lone CR may still become an empty line.
        let mayBeEmpty = length == 1 && first == HTTPSyntax.cr
        switch phase {
        case .requestLine:
            // A trailing CR may be the terminator, so it does not count yet.
            let contentLength = length - (rest[rest.count - 1] == HTTPSyntax.cr ? 1 : 0)
            return contentLength > limits.maxRequestLineBytes ? .uriTooLong : nil
        case .headers:
            return request.sectionLimitFailure(limits, lineLength: length, mayBeEmpty: mayBeEmpty)
        case .trailers:
            return request.sectionLimitFailure(limits, lineLength: length, mayBeEmpty: mayBeEmpty)
        case .chunkSize:
            return length > limits.maxChunkLineBytes ? .badRequest : nil
        case .chunkDataEnd:
            return mayBeEmpty ? nil : .badRequest
        case .fixedBody, .chunkData, .streamEnd, .failed:
            return nil
        }
    }

    /// The line without a trailing CR. A CR anywhere else is left in and refused
    /// by the character checks (RFC 9112 2.2: a bare CR is invalid).
    static func content(of line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        if let last = line.last, last == HTTPSyntax.cr {
            return UnsafeBufferPointer(rebasing: line[..<(line.count - 1)])
        }
        return line
    }

    /// The head of a streamed request; the request stays partial until its `.end`.
    private mutating func takeHead() -> HTTPRequest {
        var head = PartialRequest()
        swap(&head, &request)
        return head.build()
    }

    private mutating func finishRequest() -> HTTPRequest {
        var done = PartialRequest()
        swap(&done, &request)
        phase = .requestLine
        started = false
        return done.build()
    }
}
