/// The server's half of the NATS protocol, parsed incrementally and without
/// I/O: `feed` bytes as they arrive, split anywhere, then call `next` until it
/// returns nil. Control lines end in CRLF (a bare LF is accepted too); a MSG
/// line is followed by exactly its announced number of payload bytes and a
/// CRLF. Verbs are case-insensitive, as the protocol says.
///
/// Everything the server sends is bounded before it is buffered: a line
/// longer than `maxLineBytes` fails as soon as that many bytes arrived without
/// its end, and a MSG announcing more than `maxPayloadBytes` fails on its
/// control line, so a broken or hostile peer cannot make the client buffer
/// without limit. Errors are final: the connection is out of step and must be
/// dropped, so every later `next` throws the same error.
public struct NATSParser {
    public struct Limits: Sendable, Equatable {
        /// The longest control line, line end included: nats-server's own
        /// default for max_control_line (4 KiB).
        public var maxLineBytes: Int
        /// The largest MSG payload: nats-server refuses more than 1 MiB by
        /// default, and operators raise it to a few MiB at most.
        public var maxPayloadBytes: Int

        public init(maxLineBytes: Int = 4096, maxPayloadBytes: Int = 8 << 20) {
            self.maxLineBytes = maxLineBytes
            self.maxPayloadBytes = maxPayloadBytes
        }
    }

    /// A MSG control line whose payload has not fully arrived.
    private struct PendingMessage {
        var subject: String
        var sid: UInt64
        var size: Int
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    /// The first byte not yet returned as (part of) an event.
    private var start = 0
    /// How many bytes from `start` are known to hold no line end: a line
    /// arriving a byte at a time is searched once, not once per byte.
    private var scanned = 0
    private var pending: PendingMessage?
    private var failure: NATSError?

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received and not yet returned as events.
    public var bufferedCount: Int { buffer.count - start }

    /// Appends bytes received from the server.
    public mutating func feed(_ bytes: some Collection<UInt8>) {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// The next complete event, nil when more bytes are needed.
    public mutating func next() throws(NATSError) -> NATSEvent? {
        if let failure { throw failure }
        do throws(NATSError) {
            if let pending { return try payload(of: pending) }
            return try nextLine()
        } catch {
            failure = error
            throw error
        }
    }

    /// Drops consumed bytes: all of them at no cost when everything was
    /// parsed (the usual case), otherwise only once they are the larger part
    /// of a big buffer, so moving the rest stays proportional to what was read.
    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start >= 64 * 1024 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private mutating func nextLine() throws(NATSError) -> NATSEvent? {
        let searchEnd = min(buffer.count, start + limits.maxLineBytes)
        guard let newline = buffer[(start + scanned)..<searchEnd].firstIndex(of: ASCII.lf) else {
            scanned = searchEnd - start
            if scanned >= limits.maxLineBytes {
                throw NATSError(
                    kind: .limitExceeded, message: "a control line is longer than \(limits.maxLineBytes) bytes")
            }
            return nil
        }
        var end = newline
        if end > start && buffer[end - 1] == ASCII.cr { end -= 1 }
        let line = start..<end
        start = newline + 1
        scanned = 0
        return try event(from: line)
    }

    private mutating func event(from line: Range<Int>) throws(NATSError) -> NATSEvent? {
        var cursor = line.lowerBound
        guard let verb = nextField(&cursor, before: line.upperBound) else {
            throw violation("an empty control line")
        }
        if matches(verb, ASCII.msg) { return try messageLine(&cursor, before: line.upperBound) }
        if matches(verb, ASCII.ping) { return try bare(.ping, after: cursor, line) }
        if matches(verb, ASCII.pong) { return try bare(.pong, after: cursor, line) }
        if matches(verb, ASCII.ok) { return try bare(.ok, after: cursor, line) }
        if matches(verb, ASCII.info) {
            let json = trimmed(cursor..<line.upperBound)
            guard !json.isEmpty else { throw violation("INFO without a body") }
            return .info(Array(buffer[json]))
        }
        if matches(verb, ASCII.err) {
            var text = trimmed(cursor..<line.upperBound)
            if text.count >= 2 && buffer[text.lowerBound] == ASCII.quote && buffer[text.upperBound - 1] == ASCII.quote {
                text = (text.lowerBound + 1)..<(text.upperBound - 1)
            }
            return .err(String(decoding: buffer[text], as: UTF8.self))
        }
        throw violation("unknown operation '\(String(decoding: buffer[verb].prefix(32), as: UTF8.self))'")
    }

    /// `MSG <subject> <sid> [reply-to] <#bytes>`: records the header and
    /// returns the message if its payload is already here.
    private mutating func messageLine(_ cursor: inout Int, before end: Int) throws(NATSError) -> NATSEvent? {
        guard let subject = nextField(&cursor, before: end), let sid = nextField(&cursor, before: end),
            let third = nextField(&cursor, before: end)
        else { throw violation("MSG with too few fields") }
        let fourth = nextField(&cursor, before: end)
        guard nextField(&cursor, before: end) == nil else { throw violation("MSG with too many fields") }
        // With four fields the third is the reply subject, which is not kept.
        guard let size = decimal(fourth ?? third) else { throw violation("MSG with an invalid size") }
        guard size <= UInt64(limits.maxPayloadBytes) else {
            throw NATSError(
                kind: .limitExceeded, message: "a MSG payload is larger than \(limits.maxPayloadBytes) bytes")
        }
        guard let sidValue = decimal(sid) else { throw violation("MSG with a non-numeric sid") }
        let message = PendingMessage(
            subject: String(decoding: buffer[subject], as: UTF8.self), sid: sidValue, size: Int(size))
        pending = message
        return try payload(of: message)
    }

    private mutating func payload(of message: PendingMessage) throws(NATSError) -> NATSEvent? {
        let end = start + message.size
        guard buffer.count >= end + 2 else { return nil }
        guard buffer[end] == ASCII.cr && buffer[end + 1] == ASCII.lf else {
            throw violation("a MSG payload is not followed by CRLF")
        }
        let payload = Array(buffer[start..<end])
        start = end + 2
        pending = nil
        return .msg(subject: message.subject, sid: message.sid, payload: payload)
    }

    private func bare(_ event: NATSEvent, after cursor: Int, _ line: Range<Int>) throws(NATSError) -> NATSEvent {
        guard trimmed(cursor..<line.upperBound).isEmpty else { throw violation("unexpected text after \(event)") }
        return event
    }

    // MARK: Fields

    /// The next run of non-blank bytes at or after `cursor` (fields are
    /// separated by any number of spaces or tabs), nil at the end of the line.
    private func nextField(_ cursor: inout Int, before end: Int) -> Range<Int>? {
        while cursor < end && ASCII.isBlank(buffer[cursor]) { cursor += 1 }
        guard cursor < end else { return nil }
        let fieldStart = cursor
        while cursor < end && !ASCII.isBlank(buffer[cursor]) { cursor += 1 }
        return fieldStart..<cursor
    }

    private func trimmed(_ range: Range<Int>) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && ASCII.isBlank(buffer[lower]) { lower += 1 }
        while upper > lower && ASCII.isBlank(buffer[upper - 1]) { upper -= 1 }
        return lower..<upper
    }

    /// Whether the field is `word`, ignoring ASCII case.
    private func matches(_ field: Range<Int>, _ word: [UInt8]) -> Bool {
        guard field.count == word.count else { return false }
        for (offset, expected) in word.enumerated() where ASCII.upper(buffer[field.lowerBound + offset]) != expected {
            return false
        }
        return true
    }

    /// A decimal of digits only; nil if empty, not decimal, or over 64 bits.
    private func decimal(_ field: Range<Int>) -> UInt64? {
        var value: UInt64 = 0
        for index in field {
            let digit = buffer[index] &- ASCII.zero
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow1 && !overflow2 else { return nil }
            value = sum
        }
        return field.isEmpty ? nil : value
    }

    private func violation(_ what: String) -> NATSError {
        NATSError(kind: .protocolViolation, message: "the server sent \(what)")
    }
}

/// The bytes the parser looks for.
private enum ASCII {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let quote = UInt8(ascii: "'")
    static let zero = UInt8(ascii: "0")
    static let msg = Array("MSG".utf8)
    static let ping = Array("PING".utf8)
    static let pong = Array("PONG".utf8)
    static let ok = Array("+OK".utf8)
    static let info = Array("INFO".utf8)
    static let err = Array("-ERR".utf8)

    static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    static func upper(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
    }
}
