import SwitchboardCrypto
import SwitchboardDeflate

/// Server side of the opening handshake (RFC 6455 4.2). Takes plain inputs so it
/// does not depend on any particular HTTP request type.
public struct WebSocketHandshake {
    /// RFC 6455 1.3: the GUID appended to the client's key.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Validates an upgrade request and builds the 101 response.
    ///
    /// - Parameters:
    ///   - method: the request method; only GET may upgrade (RFC 6455 4.1).
    ///   - isHTTP11: whether the request is HTTP/1.1 or later.
    ///   - header: case-insensitive header lookup; repeated headers comma-joined.
    ///   - allowedOrigins: accepted `Origin` values; none listed accepts any. A
    ///     request without `Origin` is not from a browser, which is what the
    ///     check protects (RFC 6455 10.2), and is accepted.
    ///   - subprotocol: selected when the client offers it; empty selects none.
    ///   - deflate: the server's permessage-deflate preferences.
    public static func accept(
        method: String,
        isHTTP11: Bool,
        header: (String) -> String?,
        allowedOrigins: AllowedOrigins,
        subprotocol: String = "switchboard.v1",
        deflate: DeflateConfiguration
    ) -> Result<WebSocketHandshakeAccept, WebSocketHandshakeFailure> {
        guard method == "GET" else {
            return .failure(
                .init(status: 405, message: "WebSocket upgrade requires GET", extraHeaders: [("Allow", "GET")]))
        }
        guard isHTTP11 else { return .failure(.init(status: 400, message: "WebSocket upgrade requires HTTP/1.1")) }
        // RFC 6455 4.2.1: Upgrade contains "websocket", Connection contains "Upgrade",
        // both case-insensitive tokens within comma-separated lists.
        guard let upgrade = header("Upgrade"), containsToken(upgrade, "websocket") else {
            return .failure(.init(status: 400, message: "missing or invalid Upgrade header"))
        }
        guard let connection = header("Connection"), containsToken(connection, "upgrade") else {
            return .failure(.init(status: 400, message: "missing or invalid Connection header"))
        }
        // RFC 6455 4.4: an unsupported version is answered with 426 and the versions
        // we do support.
        let versionHeader = [("Sec-WebSocket-Version", "13")]
        guard let version = header("Sec-WebSocket-Version") else {
            return .failure(.init(status: 400, message: "missing Sec-WebSocket-Version", extraHeaders: versionHeader))
        }
        guard trimmed(version) == "13" else {
            return .failure(.init(status: 426, message: "unsupported WebSocket version", extraHeaders: versionHeader))
        }
        // RFC 6455 4.2.1: the key is the base64 encoding of 16 bytes.
        guard let rawKey = header("Sec-WebSocket-Key"), let key = validKey(trimmed(rawKey)) else {
            return .failure(.init(status: 400, message: "missing or invalid Sec-WebSocket-Key"))
        }
        if let origin = header("Origin"), !allowedOrigins.allows(trimmed(origin)) {
            return .failure(.init(status: 403, message: "origin not allowed"))
        }

        var selectedProtocol: String?
        if !subprotocol.isEmpty, let offered = header("Sec-WebSocket-Protocol") {
            // RFC 6455 4.2.2: subprotocol names are compared exactly.
            if offered.split(separator: ",").contains(where: { trimmed(String($0)) == subprotocol }) {
                selectedProtocol = subprotocol
            }
        }
        let negotiated = header("Sec-WebSocket-Extensions").flatMap {
            DeflateNegotiation.negotiate(offerHeader: [$0], configuration: deflate)
        }

        var head = "HTTP/1.1 101 Switching Protocols\r\n"
        head += "Upgrade: websocket\r\n"
        head += "Connection: Upgrade\r\n"
        head += "Sec-WebSocket-Accept: \(acceptValue(forKey: key))\r\n"
        if let selectedProtocol { head += "Sec-WebSocket-Protocol: \(selectedProtocol)\r\n" }
        if let negotiated { head += "Sec-WebSocket-Extensions: \(negotiated.responseHeaderValue)\r\n" }
        head += "\r\n"
        return .success(
            WebSocketHandshakeAccept(
                responseHead: Array(head.utf8), deflate: negotiated?.parameters, subprotocol: selectedProtocol))
    }

    /// RFC 6455 4.2.2: base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash(Array((key + guid).utf8)))
    }

    /// The client's check of a 101 response head (RFC 6455 4.1): whether it
    /// carries `Sec-WebSocket-Accept` for `key`. The header name in any case
    /// (RFC 9110), the value exactly, blanks around it allowed.
    public static func responseAccepts(_ head: String, key: String) -> Bool {
        let expected = acceptValue(forKey: key)
        return head.split(separator: "\r\n").contains { line in
            guard let colon = line.firstIndex(of: ":") else { return false }
            return line[..<colon].lowercased() == "sec-websocket-accept"
                && trimmed(String(line[line.index(after: colon)...])) == expected
        }
    }

    /// The key if it is exactly a padded standard base64 encoding of 16 bytes
    /// (22 characters and "=="); nil otherwise, including for a repeated header.
    static func validKey(_ key: String) -> String? {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return nil }
        for byte in bytes[..<22] {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"):
                continue
            default:
                return nil
            }
        }
        guard Base64.decode(key)?.count == 16 else { return nil }
        return key
    }

    /// Whether a comma-separated header value lists `token` (case-insensitive).
    static func containsToken(_ value: String, _ token: String) -> Bool {
        value.split(separator: ",").contains { trimmed(String($0)).lowercased() == token }
    }

    static func trimmed(_ text: String) -> String {
        var scalars = Substring(text)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
