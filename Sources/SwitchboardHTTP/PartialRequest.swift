/// What the parser has learned about the request being received, kept apart from
/// the parser's phase so that finishing a request is one swap. The framing headers
/// are noted as their lines are parsed, so the end of the head needs no rescan.
struct PartialRequest: Sendable {
    enum ContentLength: Sendable, Equatable {
        case absent
        case value(Int)
        /// Not digits, or two values that differ (RFC 9112 6.3).
        case invalid
    }

    var method: HTTPMethod = .get
    var target = ""
    var path = ""
    var query: String?
    var version = HTTPVersion.http11
    var headers = HTTPHeaders()
    var body: [UInt8] = []

    /// Empty lines skipped before the request line (RFC 9112 2.2), bounded.
    var blankLineBytes = 0
    /// Bytes and fields of the section being read: the header section, then the
    /// chunked trailer section, each held to the header limits on its own.
    var sectionBytes = 0
    var sectionCount = 0

    var hostCount = 0
    var contentLength = ContentLength.absent
    var transferEncodings: [String] = []
    var connectionClose = false
    var connectionKeepAlive = false

    /// RFC 6585 5: 431 for a header section over the count or size limit.
    /// `lineLength` counts the line without its LF, which is added here.
    func sectionLimitFailure(_ limits: HTTPLimits, lineLength: Int, mayBeEmpty: Bool) -> HTTPStatus? {
        if sectionBytes + lineLength + 1 > limits.maxHeaderBytes { return .requestHeaderFieldsTooLarge }
        if !mayBeEmpty && sectionCount >= limits.maxHeaderCount { return .requestHeaderFieldsTooLarge }
        return nil
    }

    /// Records a Content-Length field value: a list of decimal numbers that must
    /// all agree (RFC 9110 8.6; RFC 9112 6.3 makes disagreement unrecoverable).
    /// Values saturate instead of overflowing; any saturated value is over the limit.
    mutating func noteContentLength(_ value: UnsafeBufferPointer<UInt8>) {
        for element in value.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            var start = element.startIndex
            var end = element.endIndex
            while start < end, HTTPSyntax.isWhitespace(element[start]) { start += 1 }
            while end > start, HTTPSyntax.isWhitespace(element[end - 1]) { end -= 1 }
            guard start < end else {
                contentLength = .invalid
                return
            }
            var number = 0
            for byte in element[start..<end] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                    contentLength = .invalid
                    return
                }
                let (times10, overflow1) = number.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                number = overflow1 || overflow2 ? Int.max : sum
            }
            switch contentLength {
            case .absent: contentLength = .value(number)
            case .value(let previous) where previous == number: break
            case .value, .invalid: contentLength = .invalid
            }
        }
    }

    /// Records a Connection field value (RFC 9110 7.6.1), a token list.
    mutating func noteConnection(_ value: String) {
        if HTTPHeaders.tokenList(value, contains: "close") { connectionClose = true }
        if HTTPHeaders.tokenList(value, contains: "keep-alive") { connectionKeepAlive = true }
    }

    /// RFC 9112 9.3: HTTP/1.1 persists unless "close"; HTTP/1.0 only with "keep-alive".
    var keepAlive: Bool {
        if connectionClose { return false }
        return version == .http11 || connectionKeepAlive
    }

    /// The transfer codings listed across every Transfer-Encoding field, lowercased.
    var transferCodings: [Substring] {
        transferEncodings.flatMap { value in
            value.lowercased().split(separator: ",").map(HTTPSyntax.trimmingWhitespace).filter { !$0.isEmpty }
        }
    }

    func build() -> HTTPRequest {
        HTTPRequest(
            method: method, target: target, path: path, query: query, version: version,
            headers: headers, body: body, keepAlive: keepAlive)
    }
}
