/// A response to serialize. The framing headers (Content-Length, Connection: close)
/// are written by `serialize`, not taken from `headers`, so they always match the body.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: HTTPStatus, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ status: HTTPStatus, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8))
    }

    public static func text(_ status: HTTPStatus, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(body.utf8))
    }

    /// docs/protocol.md: errors are {"error":{"code":"...","message":"..."}}.
    public static func error(_ status: HTTPStatus, code: String, message: String) -> HTTPResponse {
        var body = #"{"error":{"code":"#
        appendJSONString(code, to: &body)
        body += #","message":"#
        appendJSONString(message, to: &body)
        body += "}}"
        return json(status, body)
    }

    /// Appends `text` as a JSON string literal (RFC 8259 7): quotes, backslashes and
    /// control characters escaped; everything else, including non-ASCII, as is.
    public static func appendJSONString(_ text: String, to out: inout String) {
        out.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            case "\u{08}": out.append("\\b")
            case "\u{0C}": out.append("\\f")
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                // DEL and the JavaScript line separators are legal JSON but break
                // naive consumers; escaping them costs nothing.
                let hex = String(scalar.value, radix: 16, uppercase: false)
                out.append("\\u" + String(repeating: "0", count: 4 - hex.utf8.count) + hex)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out.append("\"")
    }

    /// The response as bytes: status line, headers, Content-Length, and
    /// "Connection: close" when the connection will not be kept alive.
    /// With `headOnly` (a HEAD request, RFC 9110 9.3.2) the body is left out but
    /// Content-Length still states its length.
    public func serialize(keepAlive: Bool, headOnly: Bool = false) -> [UInt8] {
        var out = serializeHead(
            keepAlive: keepAlive, contentLength: Int64(body.count), reserving: headOnly ? 0 : body.count)
        let hasContent = !status.isInformational && status.code != 204 && status.code != 304
        if hasContent && !headOnly { out.append(contentsOf: body) }
        return out
    }

    /// The status line and headers alone, ending with the empty line, stating
    /// `contentLength` (where a status has content): the head of a response whose
    /// body is written after it in pieces (a download), `body` being ignored.
    public func serializeHead(keepAlive: Bool, contentLength: Int64) -> [UInt8] {
        serializeHead(keepAlive: keepAlive, contentLength: contentLength, reserving: 0)
    }

    private func serializeHead(keepAlive: Bool, contentLength: Int64, reserving extra: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + headers.count * 40 + extra)
        out.append(contentsOf: "HTTP/1.1 \(status.code) ".utf8)
        Self.appendSanitized(status.reason, to: &out)
        out.append(contentsOf: "\r\n".utf8)
        // RFC 9110 8.6, 15.4.5: no Content-Length on 1xx, 204 or 304. A 101 hands the connection
        // to another protocol, so Connection: close would contradict its Connection: Upgrade.
        let hasContent = !status.isInformational && status.code != 204 && status.code != 304
        let closes = !keepAlive && !status.isInformational
        for (name, value) in headers {
            if HTTPSyntax.equalsIgnoringCase(name, "content-length") { continue }
            if closes && HTTPSyntax.equalsIgnoringCase(name, "connection") { continue }
            Self.appendSanitized(name, to: &out)
            out.append(contentsOf: ": ".utf8)
            Self.appendSanitized(value, to: &out)
            out.append(contentsOf: "\r\n".utf8)
        }
        if hasContent { out.append(contentsOf: "Content-Length: \(contentLength)\r\n".utf8) }
        if closes { out.append(contentsOf: "Connection: close\r\n".utf8) }
        out.append(contentsOf: "\r\n".utf8)
        return out
    }

    /// Replaces CR, LF and NUL with spaces: a header value taken from user input
    /// must not be able to end the header and inject another (response splitting).
    private static func appendSanitized(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            out.append(byte == HTTPSyntax.cr || byte == HTTPSyntax.lf || byte == 0 ? HTTPSyntax.space : byte)
        }
    }
}
