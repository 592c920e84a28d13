import Testing

@testable import SwitchboardHTTP

/// The parser must not care where reads end: every corpus input, split at every
/// offset, byte by byte and in irregular chunks, gives what the whole input gives.
@Suite("HTTPRequestParser split at every offset")
struct HTTPRequestParserSplitTests {
    @Test("whole input gives the expected outcome", arguments: ParserCorpus.all)
    func whole(_ testCase: ParserCase) {
        #expect(feed(testCase.input, limits: testCase.limits) == testCase.expected)
    }

    @Test("every split gives the same outcome as the whole input", arguments: ParserCorpus.all)
    func everySplit(_ testCase: ParserCase) {
        let whole = feed(testCase.input, limits: testCase.limits)
        for (label, chunks) in splits(of: testCase.input) {
            let result = feed(chunks, limits: testCase.limits)
            #expect(result == whole, "\(label)")
            if result != whole { break }  // one report per case is enough to debug
        }
    }

    /// A request head of the maximum size, fed one byte at a time, must not make
    /// the parser rescan what it has already seen (that would be quadratic):
    /// every byte is searched for a line end exactly once.
    @Test func byteByByteSearchesEachByteOnce() {
        var head = "GET / HTTP/1.1\r\nHost: a\r\n"
        for index in 0..<60 { head += "X-Field-\(index): " + String(repeating: "v", count: 200) + "\r\n" }
        head += "\r\n"
        let input = bytes(head)
        var parser = HTTPRequestParser(limits: HTTPLimits())
        var requests = 0
        for byte in input {
            let result = [byte].withUnsafeBytes { parser.parse($0) }
            if case .request(let request) = result.result {
                requests += 1
                #expect(request.headers.count == 61)
            }
        }
        #expect(requests == 1)
        #expect(parser.lineEndSearchBytes == input.count)
        var whole = HTTPRequestParser(limits: HTTPLimits())
        _ = whole.parse(input)
        #expect(whole.lineEndSearchBytes == input.count)
    }
}
