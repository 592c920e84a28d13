/// The client side of HTTP/1.1 (the webhook dispatcher's requests): reads
/// the answer to one POST as its bytes arrive: the status line and headers,
/// any 1xx answers before the final one, then the body framed by
/// `Content-Length`, by chunks, or by the connection's end. Of the body it
/// keeps the first `keptBodyBytes` (the delivery log's excerpt) and counts
/// the rest up to `maximumBodyBytes`; past that it stops (the status decided
/// already) and the connection is not reused.
///
/// Strict where a lenient reading could let one answer run into the next on a
/// kept-alive connection (two lengths that disagree, a length with chunks, a
/// bad chunk size); otherwise it reads what receivers send.
public struct HTTPResponseReader: Sendable {
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(String)

        public var description: String {
            switch self {
            case .malformed(let reason): "the answer is not HTTP/1.1: \(reason)"
            }
        }
    }

    /// A status line and its headers, at most: a receiver cannot make us buffer without end.
    public static let maximumHeadBytes = 32 * 1024
    /// A chunk-size line (extensions included) or a trailer line, at most.
    public static let maximumLineBytes = 4 * 1024

    public let maximumBodyBytes: Int
    public let keptBodyBytes: Int
    /// The final status, once its head has been read.
    public private(set) var statusCode: Int?
    /// The body's first `keptBodyBytes`.
    public private(set) var bodyHead: [UInt8] = []
    /// Body bytes read, at most `maximumBodyBytes`.
    public private(set) var bodyBytesRead = 0
    /// The body went past `maximumBodyBytes`; the rest was not read.
    public private(set) var bodyCut = false
    /// The answer has been read to its end (or to the body's limit).
    public private(set) var isComplete = false
    /// The connection may carry another request once this answer is complete.
    public private(set) var keepsConnection = false

    private enum Stage: Equatable {
        case head
        case sized(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkEnd
        case trailers
        case untilClose
        case done
    }

    private var stage = Stage.head
    /// A head or a line not yet whole.
    private var pending: [UInt8] = []

    public init(maximumBodyBytes: Int, keptBodyBytes: Int) {
        self.maximumBodyBytes = maximumBodyBytes
        self.keptBodyBytes = keptBodyBytes
        pending.reserveCapacity(512)
    }

    /// Ready for the next answer on the same connection (the buffers kept).
    public mutating func reset() {
        statusCode = nil
        bodyHead.removeAll(keepingCapacity: true)
        bodyBytesRead = 0
        bodyCut = false
        isComplete = false
        keepsConnection = false
        stage = .head
        pending.removeAll(keepingCapacity: true)
    }

    /// Reads what `bytes` hold of the answer; returns how many it took (all of
    /// them unless the answer ended inside them: bytes after an answer the
    /// receiver sent unasked).
    public mutating func read(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Int {
        var offset = 0
        while offset < bytes.count && stage != .done {
            offset += try step(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
        return offset
    }

    /// The connection ended: completes an answer framed by the end; otherwise
    /// an answer cut short (its status, if one came, still decides).
    public mutating func endOfInput() throws(Failure) {
        switch stage {
        case .done: return
        case .untilClose: finish(keepsConnection: false)
        case .head where statusCode == nil && pending.isEmpty:
            throw .malformed("the connection closed before an answer")
        default: throw .malformed("the connection closed in the middle of the answer")
        }
    }

    private mutating func step(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Int {
        switch stage {
        case .head: return try readHead(bytes)
        case .sized(let remaining):
            let taken = min(remaining, bytes.count)
            takeBody(UnsafeRawBufferPointer(rebasing: bytes[..<taken]))
            if bodyCut { return taken }
            if remaining == taken {
                finish(keepsConnection: keepsConnection)
            } else {
                stage = .sized(remaining: remaining - taken)
            }
            return taken
        case .chunkData(let remaining):
            let taken = min(remaining, bytes.count)
            takeBody(UnsafeRawBufferPointer(rebasing: bytes[..<taken]))
            if !bodyCut { stage = remaining == taken ? .chunkEnd : .chunkData(remaining: remaining - taken) }
            return taken
        case .untilClose:
            takeBody(bytes)
            return bytes.count
        case .chunkSize, .chunkEnd, .trailers:
            guard let (line, taken) = try takeLine(bytes) else { return bytes.count }
            try endOfLine(line)
            return taken
        case .done:
            return 0
        }
    }

    /// Collects bytes up to the end of a line; nil while the line is not whole (all taken).
    private mutating func takeLine(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> ([UInt8], Int)? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else {
            pending.append(contentsOf: bytes)
            guard pending.count <= Self.maximumLineBytes else { throw .malformed("a line longer than 4 KiB") }
            return nil
        }
        pending.append(contentsOf: bytes[..<newline])
        guard pending.count <= Self.maximumLineBytes else { throw .malformed("a line longer than 4 KiB") }
        var line = pending
        pending.removeAll(keepingCapacity: true)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return (line, newline + 1)
    }

    private mutating func endOfLine(_ line: [UInt8]) throws(Failure) {
        switch stage {
        case .chunkSize:
            let size = try Self.chunkSize(line)
            stage = size == 0 ? .trailers : .chunkData(remaining: size)
        case .chunkEnd:
            guard line.isEmpty else { throw .malformed("a chunk longer than its size") }
            stage = .chunkSize
        case .trailers:
            if line.isEmpty { finish(keepsConnection: keepsConnection) }
        default:
            break
        }
    }

    /// Collects the head up to its empty line, then reads it.
    private mutating func readHead(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> Int {
        let before = pending.count
        // The end may straddle what came before and these bytes: search from three bytes back.
        pending.append(contentsOf: bytes.prefix(Self.maximumHeadBytes + 4 - before))
        let searchFrom = max(0, before - 3)
        guard let end = Self.endOfHead(pending, from: searchFrom) else {
            guard pending.count <= Self.maximumHeadBytes else { throw .malformed("a head longer than 32 KiB") }
            return bytes.count
        }
        let taken = end - before
        let head = pending[..<end]
        pending.removeAll(keepingCapacity: true)
        try interpret(head)
        return taken
    }

    /// The index just past the empty line ending a head ("\r\n\r\n", or bare "\n\n").
    private static func endOfHead(_ bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "\n") {
                if index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "\n") { return index + 2 }
                if index + 2 < bytes.count && bytes[index + 1] == UInt8(ascii: "\r")
                    && bytes[index + 2] == UInt8(ascii: "\n")
                {
                    return index + 3
                }
            }
            index += 1
        }
        return nil
    }

    private mutating func interpret(_ head: ArraySlice<UInt8>) throws(Failure) {
        var lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
            $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first else { throw .malformed("an empty head") }
        let (minorVersion, status) = try Self.statusLine(statusLine)
        if (100..<200).contains(status) {
            // 101 would switch protocols, which a POST never asked for.
            guard status != 101 else { throw .malformed("101 Switching Protocols to a POST") }
            return  // an interim answer: the final one follows
        }
        var length: Int?
        var chunked = false
        var otherCoding = false
        var closes = minorVersion == 0
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw .malformed("a header line without a colon")
            }
            let name = line[..<colon]
            let value = Self.trimmed(line[(colon + 1)...])
            if HTTPSyntax.equalsIgnoringCase(name, "content-length".utf8) {
                guard let parsed = Self.decimal(value) else {
                    throw .malformed("a Content-Length that is not a number")
                }
                guard length == nil || length == parsed else { throw .malformed("two Content-Lengths that disagree") }
                length = parsed
            } else if HTTPSyntax.equalsIgnoringCase(name, "transfer-encoding".utf8) {
                let last = value.split(separator: UInt8(ascii: ",")).last.map { Self.trimmed($0) } ?? []
                if HTTPSyntax.equalsIgnoringCase(last, "chunked".utf8) { chunked = true } else { otherCoding = true }
            } else if HTTPSyntax.equalsIgnoringCase(name, "connection".utf8) {
                for token in value.split(separator: UInt8(ascii: ",")) {
                    let token = Self.trimmed(token)
                    if HTTPSyntax.equalsIgnoringCase(token, "close".utf8) { closes = true }
                    if HTTPSyntax.equalsIgnoringCase(token, "keep-alive".utf8) && minorVersion == 0 { closes = false }
                }
            }
        }
        guard !(chunked && length != nil) else { throw .malformed("both Content-Length and chunked") }
        statusCode = status
        keepsConnection = !closes
        if status == 204 || status == 304 {
            finish(keepsConnection: keepsConnection)
        } else if otherCoding {
            keepsConnection = false
            stage = .untilClose
        } else if chunked {
            stage = .chunkSize
        } else if let length {
            if length == 0 { finish(keepsConnection: keepsConnection) } else { stage = .sized(remaining: length) }
        } else {
            keepsConnection = false
            stage = .untilClose
        }
    }

    private mutating func takeBody(_ bytes: UnsafeRawBufferPointer) {
        let keep = keptBodyBytes - bodyHead.count
        if keep > 0 { bodyHead.append(contentsOf: bytes.prefix(keep)) }
        guard bodyBytesRead + bytes.count <= maximumBodyBytes else {
            bodyBytesRead = maximumBodyBytes
            bodyCut = true
            finish(keepsConnection: false)
            return
        }
        bodyBytesRead += bytes.count
    }

    private mutating func finish(keepsConnection: Bool) {
        self.keepsConnection = keepsConnection
        isComplete = true
        stage = .done
    }

    /// "HTTP/1.x NNN reason": the minor version and the status.
    private static func statusLine(_ line: ArraySlice<UInt8>) throws(Failure) -> (Int, Int) {
        let bytes = Array(line)
        guard bytes.count >= 12, bytes.starts(with: Array("HTTP/1.".utf8)), bytes[8] == UInt8(ascii: " "),
            bytes[7] == UInt8(ascii: "0") || bytes[7] == UInt8(ascii: "1"),
            let status = decimal(bytes[9..<12]), bytes.count == 12 || bytes[12] == UInt8(ascii: " ")
        else { throw .malformed("a bad status line") }
        guard status >= 100 else { throw .malformed("a status below 100") }
        return (Int(bytes[7] - UInt8(ascii: "0")), status)
    }

    private static func chunkSize(_ line: [UInt8]) throws(Failure) -> Int {
        var size = 0
        var digits = 0
        for byte in line {
            guard let value = HTTPSyntax.hexValue(byte) else {
                guard byte == UInt8(ascii: ";") || HTTPSyntax.isWhitespace(byte) else {
                    throw .malformed("a bad chunk size")
                }
                guard digits > 0 else { throw .malformed("a chunk without a size") }
                return size
            }
            digits += 1
            guard digits <= 15 else { throw .malformed("a chunk size too large") }
            size = size * 16 + value
        }
        guard digits > 0 else { throw .malformed("a chunk without a size") }
        return size
    }

    /// A decimal of at most 15 digits, nothing else.
    private static func decimal(_ bytes: some Collection<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 15 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var value = bytes
        while let first = value.first, HTTPSyntax.isWhitespace(first) { value.removeFirst() }
        while let last = value.last, HTTPSyntax.isWhitespace(last) { value.removeLast() }
        return value
    }
}
