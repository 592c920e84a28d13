/// One HTTP/1.1 request the webhook receiver read: ranges into the buffer it
/// was parsed from, for the parts the receiver uses.
struct ReceivedRequest: Equatable {
    var method: Range<Int>
    var target: Range<Int>
    var body: Range<Int>
    var keepAlive: Bool
    var webhookID: Range<Int>?
    var webhookTimestamp: Range<Int>?
    var webhookSignature: Range<Int>?
}

/// What the bytes of a connection hold from a given offset.
enum RequestParse: Equatable {
    /// Not a whole request yet; `expectsContinue` once the head is complete
    /// and asks for `100 Continue` before its body.
    case incomplete(expectsContinue: Bool)
    /// A request ending at `end` (the next one starts there).
    case complete(ReceivedRequest, end: Int)
    /// Answered with `status`, then the connection is closed.
    case malformed(status: Int, reason: String)
}

/// A strict little HTTP/1.1 request parser for the receiver: a request line,
/// headers, a body of `Content-Length` bytes (none without it). Chunked
/// bodies are refused (501): the dispatcher sends Content-Length. Only the
/// headers the receiver needs are kept; names compare without case.
enum WebhookRequestParser {
    static let maxHeadBytes = 16 * 1024
    static let maxBodyBytes = 4 * 1024 * 1024

    static func parse(_ bytes: [UInt8], from start: Int) -> RequestParse {
        guard let headEnd = headEnd(bytes, from: start) else {
            if bytes.count - start > maxHeadBytes { return .malformed(status: 431, reason: "head too large") }
            return .incomplete(expectsContinue: false)
        }
        if headEnd - start > maxHeadBytes { return .malformed(status: 431, reason: "head too large") }
        // The request line.
        guard let lineEnd = lineEnd(bytes, from: start, limit: headEnd) else {
            return .malformed(status: 400, reason: "no request line")
        }
        guard let firstSpace = bytes[start..<lineEnd].firstIndex(of: space), firstSpace > start,
            let secondSpace = bytes[(firstSpace + 1)..<lineEnd].firstIndex(of: space), secondSpace > firstSpace + 1
        else { return .malformed(status: 400, reason: "bad request line") }
        let version = bytes[(secondSpace + 1)..<lineEnd]
        let http11 = version.elementsEqual(Self.http11)
        guard http11 || version.elementsEqual(Self.http10) else {
            return .malformed(status: 505, reason: "not HTTP/1.0 or 1.1")
        }
        var request = ReceivedRequest(
            method: start..<firstSpace, target: (firstSpace + 1)..<secondSpace, body: 0..<0, keepAlive: http11)
        var contentLength: Int?
        var expectsContinue = false
        var line = lineEnd + 2
        // Header lines up to the blank line that ends the head (headEnd - 2).
        while line < headEnd - 2 {
            guard let end = Self.lineEnd(bytes, from: line, limit: headEnd) else { break }
            guard let colon = bytes[line..<end].firstIndex(of: UInt8(ascii: ":")), colon > line else {
                return .malformed(status: 400, reason: "a header line without a name")
            }
            var valueStart = colon + 1
            var valueEnd = end
            while valueStart < valueEnd && (bytes[valueStart] == space || bytes[valueStart] == tab) { valueStart += 1 }
            while valueEnd > valueStart && (bytes[valueEnd - 1] == space || bytes[valueEnd - 1] == tab) {
                valueEnd -= 1
            }
            let name = line..<colon
            let value = valueStart..<valueEnd
            if named(bytes, name, Self.contentLength) {
                guard let length = Self.decimal(bytes[value]) else {
                    return .malformed(status: 400, reason: "bad Content-Length")
                }
                if let contentLength, contentLength != length {
                    return .malformed(status: 400, reason: "two Content-Lengths")
                }
                contentLength = length
            } else if named(bytes, name, Self.transferEncoding) {
                return .malformed(status: 501, reason: "Transfer-Encoding is not supported")
            } else if named(bytes, name, Self.connection) {
                for token in bytes[value].split(separator: UInt8(ascii: ",")) {
                    let trimmed = token.drop { $0 == space }.reversed().drop { $0 == space }.reversed()
                    if lowercased(trimmed, equals: Self.close) { request.keepAlive = false }
                    if lowercased(trimmed, equals: Self.keepAliveToken) { request.keepAlive = true }
                }
            } else if named(bytes, name, Self.expect) {
                expectsContinue = lowercased(bytes[value], equals: Self.continueToken)
            } else if named(bytes, name, Self.webhookID) {
                request.webhookID = value
            } else if named(bytes, name, Self.webhookTimestamp) {
                request.webhookTimestamp = value
            } else if named(bytes, name, Self.webhookSignature) {
                request.webhookSignature = value
            }
            line = end + 2
        }
        let length = contentLength ?? 0
        guard length <= maxBodyBytes else { return .malformed(status: 413, reason: "body too large") }
        guard bytes.count - headEnd >= length else { return .incomplete(expectsContinue: expectsContinue) }
        request.body = headEnd..<(headEnd + length)
        return .complete(request, end: headEnd + length)
    }

    /// The index just past the `\r\n\r\n` that ends the head starting at `start`.
    static func headEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        let last = bytes.count - 4
        while index <= last {
            if bytes[index + 3] != lf {
                // Skip ahead: a CRLFCRLF cannot end before the next LF.
                index += bytes[index + 3] == cr ? 1 : 4
                continue
            }
            if bytes[index] == cr && bytes[index + 1] == lf && bytes[index + 2] == cr { return index + 4 }
            index += 1
        }
        return nil
    }

    /// The index of the CR of the CRLF ending the line at `start`, before `limit`.
    private static func lineEnd(_ bytes: [UInt8], from start: Int, limit: Int) -> Int? {
        var index = start
        while index + 1 < limit {
            if bytes[index] == cr && bytes[index + 1] == lf { return index }
            index += 1
        }
        return nil
    }

    private static func named(_ bytes: [UInt8], _ range: Range<Int>, _ lowercaseName: [UInt8]) -> Bool {
        lowercased(bytes[range], equals: lowercaseName)
    }

    static func lowercased(_ bytes: some Collection<UInt8>, equals lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        for (byte, wanted) in zip(bytes, lowercase) {
            let lowered = byte >= 65 && byte <= 90 ? byte + 32 : byte
            if lowered != wanted { return false }
        }
        return true
    }

    /// A non-negative decimal of at most 9 digits.
    static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let http11 = Array("HTTP/1.1".utf8)
    private static let http10 = Array("HTTP/1.0".utf8)
    private static let contentLength = Array("content-length".utf8)
    private static let transferEncoding = Array("transfer-encoding".utf8)
    private static let connection = Array("connection".utf8)
    private static let expect = Array("expect".utf8)
    private static let close = Array("close".utf8)
    private static let keepAliveToken = Array("keep-alive".utf8)
    private static let continueToken = Array("100-continue".utf8)
    private static let webhookID = Array("webhook-id".utf8)
    private static let webhookTimestamp = Array("webhook-timestamp".utf8)
    private static let webhookSignature = Array("webhook-signature".utf8)
}
