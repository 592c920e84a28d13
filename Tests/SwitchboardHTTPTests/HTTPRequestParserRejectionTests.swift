import SwitchboardHTTP
import Testing

/// Statuses for bad input are asserted case by case in ParserCorpus (whole and
/// split); these tests pin the behaviour around them: how early the limits fire,
/// and what a failed parser does next.
@Suite("HTTPRequestParser: rejections")
struct HTTPRequestParserRejectionTests {
    @Test func overlongRequestLineFailsBeforeItsEnd() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        let chunk = bytes("GET /" + String(repeating: "a", count: 4000))
        #expect(parser.parse(chunk).result == .needMore)
        #expect(parser.parse(chunk).result == .needMore)
        // Past 8192 bytes without a line end: no need to wait for the CRLF.
        #expect(parser.parse(chunk).result == .failure(.uriTooLong))
    }

    @Test func requestLineCRDoesNotCountTowardsTheLimit() {
        let limits = HTTPLimits(maxRequestLineBytes: 16)
        let line = "GET /abc HTTP/1.1"  // 17 bytes
        #expect(feed(line + "\r", limits: limits).failure == .uriTooLong)
        #expect(feed("GET /ab HTTP/1.1\r", limits: limits).failure == nil)
        #expect(feed("GET /ab HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits).requests.count == 1)
    }

    @Test func oversizedHeaderSectionFailsBeforeItsEnd() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        #expect(parser.parse(bytes("GET / HTTP/1.1\r\nHost: a\r\nCookie: ")).result == .needMore)
        let filler = bytes(String(repeating: "c", count: 8192))
        #expect(parser.parse(filler).result == .needMore)
        #expect(parser.parse(filler).result == .failure(.requestHeaderFieldsTooLarge))
    }

    @Test func headerCountLimitAllowsExactlyTheLimit() {
        let limits = HTTPLimits(maxHeaderCount: 3)
        #expect(feed("GET / HTTP/1.1\r\nHost: a\r\nB: 1\r\nC: 1\r\n\r\n", limits: limits).requests.count == 1)
        #expect(
            feed("GET / HTTP/1.1\r\nHost: a\r\nB: 1\r\nC: 1\r\nD: 1\r\n\r\n", limits: limits).failure
                == .requestHeaderFieldsTooLarge)
    }

    @Test func contentLengthOverLimitFailsWithoutTheBody() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        let head = bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048577\r\n\r\n")
        let (consumed, result) = parser.parse(head)
        #expect(result == .failure(.payloadTooLarge))
        #expect(consumed == head.count)
        // At the limit is fine.
        var atLimit = HTTPRequestParser(limits: HTTPLimits())
        #expect(
            atLimit.parse(bytes("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1048576\r\n\r\n")).result == .needMore)
    }

    @Test func chunkedBodyAtTheLimitIsAccepted() throws {
        let limits = HTTPLimits(maxBodyBytes: 8)
        let result = feed(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n4\r\nefgh\r\n0\r\n\r\n",
            limits: limits)
        #expect(try #require(result.requests.first).body == bytes("abcdefgh"))
    }

    @Test func failureIsStickyAndConsumesNothingMore() {
        var parser = HTTPRequestParser(limits: HTTPLimits())
        #expect(parser.parse(bytes("GET / HTTP/2.0\r\n\r\n")).result == .failure(.httpVersionNotSupported))
        let again = parser.parse(bytes("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
        #expect(again.consumed == 0)
        #expect(again.result == .failure(.httpVersionNotSupported))
    }

    @Test(
        "every control byte is refused in a field value",
        arguments: fieldValueControlBytes)
    func controlBytesInFieldValue(byte: UInt8) {
        let input = bytes("GET / HTTP/1.1\r\nHost: a\r\nX: a") + [byte] + bytes("b\r\n\r\n")
        #expect(feed(input).failure == .badRequest)
    }

    @Test(
        "separators are refused in field names",
        arguments: ["(", ")", ",", "/", ";", "<", "=", ">", "?", "@", "[", "\\", "]", "{", "}", "\"", "\t"])
    func separatorsInFieldName(separator: String) {
        #expect(feed("GET / HTTP/1.1\r\nHost: a\r\nX\(separator)Y: 1\r\n\r\n").failure == .badRequest)
    }
}

/// C0 controls other than HTAB, LF and CR, and DEL. Spelled out in steps: as one
/// expression the type checker can run out of time on a loaded machine.
private let fieldValueControlBytes: [UInt8] = {
    let allowed: Set<UInt8> = [9, 10, 13]
    let c0: [UInt8] = Array(0...31)
    return c0.filter { !allowed.contains($0) } + [127]
}()
