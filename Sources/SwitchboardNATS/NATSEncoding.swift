/// The client's half of the protocol: frames appended to a byte buffer as
/// they go on the wire, with no intermediate strings (a publication costs
/// copies of its subject and payload into the buffer, nothing else).
enum NATSEncoding {
    /// The longest subject accepted. Generous for dotted names, and keeps
    /// every MSG line the server sends back far under the parser's 4 KiB.
    static let maxSubjectBytes = 1024

    /// Whether the server can take `subject`: not empty, not too long, and
    /// no blank or line break (a field separator would shift the frame's
    /// fields, and the server would drop the connection on the garbage).
    static func isValidSubject(_ subject: String) -> Bool {
        let utf8 = subject.utf8
        guard !utf8.isEmpty && utf8.count <= maxSubjectBytes else { return false }
        return !utf8.contains { $0 == space || $0 == tab || $0 == cr || $0 == lf }
    }

    /// CONNECT without +OK acknowledgements (verbose) or extra checks
    /// (pedantic): the PING that follows it confirms the whole handshake.
    /// `echo` false asks the server not to deliver this connection's own
    /// publications to its own subscriptions (NATS delivers them by default).
    static func appendConnect(name: String, echo: Bool = true, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "CONNECT {\"verbose\":false,\"pedantic\":false,".utf8)
        if !echo { bytes.append(contentsOf: "\"echo\":false,".utf8) }
        bytes.append(contentsOf: "\"name\":".utf8)
        appendJSONString(name, to: &bytes)
        bytes.append(contentsOf: ",\"lang\":\"swift\",\"version\":\"1.0.0\"}\r\n".utf8)
    }

    static func appendSubscribe(_ subject: String, sid: UInt64, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "SUB ".utf8)
        bytes.append(contentsOf: subject.utf8)
        bytes.append(space)
        appendDecimal(sid, to: &bytes)
        bytes.append(contentsOf: crlf)
    }

    static func appendUnsubscribe(sid: UInt64, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "UNSUB ".utf8)
        appendDecimal(sid, to: &bytes)
        bytes.append(contentsOf: crlf)
    }

    static func appendPing(to bytes: inout [UInt8]) { bytes.append(contentsOf: "PING\r\n".utf8) }
    static func appendPong(to bytes: inout [UInt8]) { bytes.append(contentsOf: "PONG\r\n".utf8) }

    /// `PUB <subject> <#bytes>\r\n<payload>\r\n`.
    static func appendPublication(subject: String, payload: [UInt8], to bytes: inout [UInt8]) {
        bytes.append(contentsOf: "PUB ".utf8)
        bytes.append(contentsOf: subject.utf8)
        bytes.append(space)
        appendDecimal(UInt64(payload.count), to: &bytes)
        bytes.append(contentsOf: crlf)
        bytes.append(contentsOf: payload)
        bytes.append(contentsOf: crlf)
    }

    /// What `appendPublication` adds, computed without encoding (for the
    /// buffer limit, checked before anything is copied).
    static func publicationSize(subject: String, payloadCount: Int) -> Int {
        "PUB ".utf8.count + subject.utf8.count + 1 + digitCount(UInt64(payloadCount)) + 2 + payloadCount + 2
    }

    static func appendDecimal(_ value: UInt64, to bytes: inout [UInt8]) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    static func digitCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }

    /// A JSON string literal: quotes, backslashes and control characters
    /// escaped, everything else as UTF-8 (the client name is the operator's
    /// text and shows up in the server's monitoring).
    static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let cr = UInt8(ascii: "\r")
    private static let lf = UInt8(ascii: "\n")
    private static let crlf: [UInt8] = [cr, lf]
    private static let hexDigits = Array("0123456789abcdef".utf8)
}
