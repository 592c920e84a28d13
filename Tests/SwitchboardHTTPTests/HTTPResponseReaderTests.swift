import SwitchboardHTTP
import Testing

/// The webhook client's answer reader: framing, keep-alive, limits and what it refuses.
struct HTTPResponseReaderTests {
    struct Read: Equatable {
        var status: Int?
        var head: String
        var bodyBytes: Int
        var cut: Bool
        var complete: Bool
        var keeps: Bool
        /// Bytes of the input the answer took.
        var taken: Int
    }

    /// Reads `text` in pieces of `piece` bytes (all at once for 0), then the end of input when `ends`.
    func read(
        _ text: String, piece: Int = 0, ends: Bool = false, limit: Int = 64, kept: Int = 8
    ) throws -> Read {
        var reader = HTTPResponseReader(maximumBodyBytes: limit, keptBodyBytes: kept)
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count && !reader.isComplete {
            let end = piece == 0 ? bytes.count : min(bytes.count, offset + piece)
            let taken = try bytes[offset..<end].withUnsafeBytes { chunk in
                try reader.read(chunk)
            }
            #expect(taken <= end - offset)
            let ended = taken < end - offset
            offset += taken
            // The answer ended inside this piece: what follows is not its.
            if ended { break }
        }
        if ends { try reader.endOfInput() }
        return Read(
            status: reader.statusCode, head: String(decoding: reader.bodyHead, as: UTF8.self),
            bodyBytes: reader.bodyBytesRead, cut: reader.bodyCut, complete: reader.isComplete,
            keeps: reader.keepsConnection, taken: offset)
    }

    @Test func readsALengthFramedAnswerAndKeepsTheConnection() throws {
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\nContent-Type: text/plain\r\n\r\nhello world"
        let expected = Read(
            status: 200, head: "hello wo", bodyBytes: 11, cut: false, complete: true, keeps: true,
            taken: answer.utf8.count)
        for piece in 0...answer.utf8.count { #expect(try read(answer, piece: piece) == expected, "pieces of \(piece)") }
    }

    @Test func readsChunksWithExtensionsAndTrailers() throws {
        let answer =
            "HTTP/1.1 201 Created\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n"
            + "5;ext=1\r\nhello\r\nA\r\n 012345678\r\n0\r\nX-Trailer: t\r\n\r\n"
        let expected = Read(
            status: 201, head: "hello 01", bodyBytes: 15, cut: false, complete: true, keeps: true,
            taken: answer.utf8.count)
        for piece in 0...answer.utf8.count { #expect(try read(answer, piece: piece) == expected, "pieces of \(piece)") }
    }

    @Test func anAnswerWithoutLengthEndsWithTheConnection() throws {
        let answer = "HTTP/1.1 500 Oops\r\nServer: x\r\n\r\nbroken"
        #expect(try read(answer).complete == false)
        #expect(
            try read(answer, ends: true)
                == Read(
                    status: 500, head: "broken", bodyBytes: 6, cut: false, complete: true, keeps: false,
                    taken: answer.utf8.count))
        // Another coding than chunked last: framed by the end too.
        #expect(try read("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nxyz", ends: true).keeps == false)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true),
        ("HTTP/1.1 204 No Content\r\n\r\n", true),
        ("HTTP/1.1 302 Found\nLocation: /x\ncontent-length: 0\n\n", true),
    ])
    func keepsTheConnectionOnlyWhenTheAnswerAllows(answer: String, keeps: Bool) throws {
        let result = try read(answer)
        #expect(result.complete)
        #expect(result.keeps == keeps)
    }

    @Test func skipsInterimAnswers() throws {
        let answer =
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\nX: y\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\nok"
        for piece in [0, 1, 3, 7] {
            #expect(
                try read(answer, piece: piece)
                    == Read(
                        status: 202, head: "ok", bodyBytes: 2, cut: false, complete: true, keeps: true,
                        taken: answer.utf8.count))
        }
    }

    @Test func stopsAtTheBodyLimitAndGivesTheConnectionUp() throws {
        let body = String(repeating: "z", count: 65)
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n" + body
        let result = try read(answer)
        #expect(result.status == 200 && result.cut && result.complete && !result.keeps)
        #expect(result.bodyBytes == 64 && result.head == "zzzzzzzz")
        // Exactly the limit is read whole, and the connection kept.
        let whole = try read("HTTP/1.1 200 OK\r\nContent-Length: 64\r\n\r\n" + body.dropLast())
        #expect(!whole.cut && whole.complete && whole.keeps && whole.bodyBytes == 64)
        // Chunks over the limit, and an answer framed by the end.
        #expect(try read("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n41\r\n" + body).cut)
        #expect(try read("HTTP/1.1 200 OK\r\n\r\n" + body).cut)
    }

    @Test func takesNoBytesPastItsAnswer() throws {
        let answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n"
        let result = try read(answer)
        #expect(result.complete && result.taken == answer.utf8.count - 17)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", "two Content-Lengths that disagree"),
        (
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
            "both Content-Length and chunked"
        ),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "a Content-Length that is not a number"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n", "a Content-Length that is not a number"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "a bad chunk size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n;x\r\n", "a chunk without a size"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", "a chunk size too large"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", "a chunk longer than its size"),
        ("HTTP/2 200\r\n\r\n", "a bad status line"),
        ("HTTP/1.1 20 OK\r\n\r\n", "a bad status line"),
        ("HTTP/1.1 2000 OK\r\n\r\n", "a bad status line"),
        ("HTTP/1.1 099 Low\r\n\r\n", "a status below 100"),
        ("SSH-2.0-OpenSSH\r\n\r\n", "a bad status line"),
        ("HTTP/1.1 101 Switching Protocols\r\n\r\n", "101 Switching Protocols to a POST"),
        ("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", "a header line without a colon"),
    ])
    func refusesWhatCouldRunIntoTheNextAnswer(answer: String, reason: String) {
        #expect(throws: HTTPResponseReader.Failure.malformed(reason)) { try read(answer) }
        #expect(throws: HTTPResponseReader.Failure.malformed(reason)) { try read(answer, piece: 1) }
    }

    @Test func boundsTheHeadAndTheLines() {
        let longHead = "HTTP/1.1 200 OK\r\nX: " + String(repeating: "a", count: HTTPResponseReader.maximumHeadBytes)
        #expect(throws: HTTPResponseReader.Failure.malformed("a head longer than 32 KiB")) { try read(longHead) }
        #expect(throws: HTTPResponseReader.Failure.malformed("a head longer than 32 KiB")) {
            try read(longHead, piece: 1000)
        }
        let longLine = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 5000)
        #expect(throws: HTTPResponseReader.Failure.malformed("a line longer than 4 KiB")) { try read(longLine) }
    }

    @Test func anAnswerCutShortIsAFailureWithItsStatus() throws {
        var reader = HTTPResponseReader(maximumBodyBytes: 64, keptBodyBytes: 8)
        let bytes = Array("HTTP/1.1 503 Busy\r\nContent-Length: 10\r\n\r\nabc".utf8)
        _ = try bytes.withUnsafeBytes { chunk in try reader.read(chunk) }
        #expect(throws: HTTPResponseReader.Failure.malformed("the connection closed in the middle of the answer")) {
            try reader.endOfInput()
        }
        #expect(reader.statusCode == 503)
        var silent = HTTPResponseReader(maximumBodyBytes: 64, keptBodyBytes: 8)
        #expect(throws: HTTPResponseReader.Failure.malformed("the connection closed before an answer")) {
            try silent.endOfInput()
        }
    }

    @Test func startsAgainForTheNextAnswer() throws {
        var reader = HTTPResponseReader(maximumBodyBytes: 64, keptBodyBytes: 8)
        for (answer, status) in [
            ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na", 200), ("HTTP/1.1 404 No\r\n\r\n", 404),
        ] {
            reader.reset()
            let bytes = Array(answer.utf8)
            _ = try bytes.withUnsafeBytes { chunk in try reader.read(chunk) }
            #expect(reader.statusCode == status)
        }
        #expect(reader.bodyHead.isEmpty && !reader.isComplete)
    }
}
