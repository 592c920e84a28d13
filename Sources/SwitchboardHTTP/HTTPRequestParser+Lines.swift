/// The parser's handling of each kind of complete line: request line, field line,
/// chunk-size line; and the framing decision at the end of the head.
extension HTTPRequestParser {
    /// RFC 9112 3: request-line = method SP request-target SP HTTP-version.
    mutating func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) -> LineOutcome {
        let content = Self.content(of: line)
        if content.isEmpty {
            // RFC 9112 2.2: ignore empty lines before the request line (some clients
            // send a CRLF after a POST body), but not without end.
            request.blankLineBytes += line.count + 1
            return request.blankLineBytes > limits.maxRequestLineBytes ? .fail(.badRequest) : .proceed
        }
        // The same measure as on a partial line, so that the order of checks holds.
        if content.count > limits.maxRequestLineBytes { return .fail(.uriTooLong) }

        var index = 0
        while index < content.count, HTTPSyntax.isTokenChar(content[index]) { index += 1 }
        let methodEnd = index
        // RFC 9112 3: exactly one SP between the parts; a method is a token.
        guard methodEnd > 0, index < content.count, content[index] == HTTPSyntax.space else {
            return .fail(.badRequest)
        }
        index += 1
        let targetStart = index
        while index < content.count, HTTPSyntax.isTargetChar(content[index]) { index += 1 }
        let targetEnd = index
        guard targetEnd > targetStart, index < content.count, content[index] == HTTPSyntax.space else {
            return .fail(.badRequest)
        }
        guard let version = Self.parseVersion(UnsafeBufferPointer(rebasing: content[(index + 1)...])) else {
            return .fail(.badRequest)
        }
        // RFC 9110 6.2 / 15.6.6: we speak only HTTP/1.0 and HTTP/1.1 on this port.
        guard version == .http11 || version == .http10 else { return .fail(.httpVersionNotSupported) }

        let method = HTTPMethod(bytes: UnsafeBufferPointer(rebasing: content[..<methodEnd]))
        let target = String(decoding: UnsafeBufferPointer(rebasing: content[targetStart..<targetEnd]), as: UTF8.self)
        let first = content[targetStart]
        if first == UInt8(ascii: "/") {
            // Origin-form (RFC 9112 3.2.1), the common case: split here, not via split(target:).
            let targetBytes = UnsafeBufferPointer(rebasing: content[targetStart..<targetEnd])
            if let question = targetBytes.firstIndex(of: UInt8(ascii: "?")) {
                request.path = String(decoding: UnsafeBufferPointer(rebasing: targetBytes[..<question]), as: UTF8.self)
                request.query = String(
                    decoding: UnsafeBufferPointer(rebasing: targetBytes[(question + 1)...]), as: UTF8.self)
            } else {
                request.path = target
            }
        } else if method == .options && target == "*" {
            request.path = target  // asterisk-form, RFC 9112 3.2.4
        } else if method == .other("CONNECT") {
            request.path = target  // authority-form, RFC 9112 3.2.3
        } else if let colon = target.utf8.firstIndex(of: UInt8(ascii: ":")), colon != target.utf8.startIndex,
            target.utf8[..<colon].allSatisfy(Self.isSchemeChar), target.utf8[colon...].starts(with: "://".utf8)
        {
            (request.path, request.query) = HTTPRequest.split(target: target)  // absolute-form, RFC 9112 3.2.2
        } else {
            return .fail(.badRequest)
        }
        request.method = method
        request.target = target
        request.version = version
        request.headers.reserveCapacity(16)
        phase = .headers
        return .proceed
    }

    /// RFC 9112 2.3: HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive.
    /// Nil when the text is not a version at all (400), as opposed to a version
    /// we do not support (505).
    static func parseVersion(_ text: UnsafeBufferPointer<UInt8>) -> HTTPVersion? {
        guard text.count == 8, text[..<5].elementsEqual("HTTP/".utf8), text[6] == UInt8(ascii: ".") else {
            return nil
        }
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard digits.contains(text[5]), digits.contains(text[7]) else { return nil }
        return HTTPVersion(major: Int(text[5] - UInt8(ascii: "0")), minor: Int(text[7] - UInt8(ascii: "0")))
    }

    /// RFC 3986 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
    private static func isSchemeChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// RFC 9112 5: field-line = field-name ":" OWS field-value OWS. Trailer fields
    /// (RFC 9112 7.1.2) get the same checks and limits and are then discarded.
    mutating func parseFieldLine(_ line: UnsafeBufferPointer<UInt8>, inTrailers: Bool) -> LineOutcome {
        let content = Self.content(of: line)
        if let status = request.sectionLimitFailure(limits, lineLength: line.count, mayBeEmpty: content.isEmpty) {
            return .fail(status)
        }
        request.sectionBytes += line.count + 1
        if content.isEmpty {
            return inTrailers ? .complete : finishHead()
        }
        request.sectionCount += 1

        // RFC 9112 5.2: obs-fold (a line starting with whitespace) is refused.
        var index = 0
        while index < content.count, HTTPSyntax.isTokenChar(content[index]) { index += 1 }
        // RFC 9112 5.1: no whitespace between the field name and the colon.
        guard index > 0, index < content.count, content[index] == HTTPSyntax.colon else { return .fail(.badRequest) }
        let nameEnd = index
        var valueStart = index + 1
        var valueEnd = content.count
        while valueStart < valueEnd, HTTPSyntax.isWhitespace(content[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, HTTPSyntax.isWhitespace(content[valueEnd - 1]) { valueEnd -= 1 }
        for position in valueStart..<valueEnd where !HTTPSyntax.isFieldValueChar(content[position]) {
            return .fail(.badRequest)
        }
        if inTrailers { return .proceed }

        let name = UnsafeBufferPointer(rebasing: content[..<nameEnd])
        let value = UnsafeBufferPointer(rebasing: content[valueStart..<valueEnd])
        let valueString = String(decoding: value, as: UTF8.self)
        switch name.count {
        case 4 where HTTPSyntax.equalsIgnoringCase(name, "host".utf8):
            request.hostCount += 1
        case 10 where HTTPSyntax.equalsIgnoringCase(name, "connection".utf8):
            request.noteConnection(valueString)
        case 14 where HTTPSyntax.equalsIgnoringCase(name, "content-length".utf8):
            request.noteContentLength(value)
        case 17 where HTTPSyntax.equalsIgnoringCase(name, "transfer-encoding".utf8):
            request.transferEncodings.append(valueString)
        default:
            break
        }
        request.headers.add(name: String(decoding: name, as: UTF8.self), value: valueString)
        return .proceed
    }

    /// Decides the message framing once the head is complete (RFC 9112 6.3).
    mutating func finishHead() -> LineOutcome {
        // RFC 9112 3.2: a 1.1 request without Host, or any request with more than one, is 400.
        if request.hostCount > 1 || (request.version == .http11 && request.hostCount == 0) {
            return .fail(.badRequest)
        }
        if !request.transferEncodings.isEmpty {
            // RFC 9112 6.1 / 6.3: Transfer-Encoding with Content-Length is how requests
            // are smuggled past proxies that pick the other one: refuse outright.
            if request.contentLength != .absent { return .fail(.badRequest) }
            // RFC 9112 6.1: Transfer-Encoding in HTTP/1.0 means the framing is faulty.
            if request.version == .http10 { return .fail(.badRequest) }
            let codings = request.transferCodings
            // RFC 9112 6.1: a coding we do not implement is 501.
            if codings.contains(where: { $0 != "chunked" }) { return .fail(.notImplemented) }
            // RFC 9112 7: chunked exactly once (and so last); an empty list frames nothing.
            guard codings.count == 1 else { return .fail(.badRequest) }
            request.sectionBytes = 0
            request.sectionCount = 0
            phase = .chunkSize
            if let limit = streamedLimit() {
                startStreaming(limit: limit)
                return .head(.chunked)
            }
            return .proceed
        }
        if request.contentLength != .invalid, let limit = streamedLimit() {
            guard case .value(let length) = request.contentLength else {
                startStreaming(limit: limit)
                phase = .streamEnd  // RFC 9112 6.3: no framing header, no body.
                return .head(.length(0))
            }
            if length > limit { return .fail(.payloadTooLarge) }
            startStreaming(limit: limit)
            phase = length == 0 ? .streamEnd : .fixedBody(remaining: length)
            return .head(.length(length))
        }
        switch request.contentLength {
        case .absent, .value(0):
            return .complete  // RFC 9112 6.3: no framing header, no body.
        case .invalid:
            return .fail(.badRequest)
        case .value(let length):
            if length > limits.maxBodyBytes { return .fail(.payloadTooLarge) }
            // Reserve only part up front: a client may promise a megabyte and send nothing.
            request.body.reserveCapacity(min(length, 64 * 1024))
            phase = .fixedBody(remaining: length)
            return .proceed
        }
    }

    /// The body limit if this request's body is to be streamed.
    private func streamedLimit() -> Int? {
        guard let decide = streamedBodyLimit else { return nil }
        return decide(request.method, request.path).map { max(0, $0) }
    }

    private mutating func startStreaming(limit: Int) {
        streaming = true
        streamLimit = limit
        streamedBytes = 0
    }

    /// RFC 9112 7.1: chunk-size [ chunk-ext ] CRLF, chunk-size = 1*HEXDIG,
    /// chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ). Extensions are
    /// checked for stray control bytes and otherwise ignored.
    mutating func parseChunkSizeLine(_ line: UnsafeBufferPointer<UInt8>) -> LineOutcome {
        if line.count > limits.maxChunkLineBytes { return .fail(.badRequest) }
        let content = Self.content(of: line)
        var index = 0
        var size = 0
        while index < content.count, let digit = HTTPSyntax.hexValue(content[index]) {
            let (times16, overflow) = size.multipliedReportingOverflow(by: 16)
            guard !overflow else { return .fail(.badRequest) }
            size = times16 + digit
            index += 1
        }
        guard index > 0 else { return .fail(.badRequest) }
        let afterSize = index
        while index < content.count, HTTPSyntax.isWhitespace(content[index]) { index += 1 }
        if index < content.count {
            guard content[index] == UInt8(ascii: ";") else { return .fail(.badRequest) }
            for position in index..<content.count where !HTTPSyntax.isFieldValueChar(content[position]) {
                return .fail(.badRequest)
            }
        } else if index != afterSize {
            return .fail(.badRequest)  // BWS is allowed only before an extension.
        }
        if size == 0 {
            phase = .trailers  // last-chunk; the trailer section follows (RFC 9112 7.1.2).
            return .proceed
        }
        if streaming {
            if size > streamLimit - streamedBytes { return .fail(.payloadTooLarge) }
            streamedBytes += size
        } else if size > limits.maxBodyBytes - request.body.count {
            return .fail(.payloadTooLarge)
        }
        phase = .chunkData(remaining: size)
        return .proceed
    }
}
