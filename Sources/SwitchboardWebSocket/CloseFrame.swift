/// Close frame bodies (RFC 6455 5.5.1 and 7.4).
public enum CloseFrame {
    /// The close code and reason of a received close body, or the error to fail
    /// the connection with.
    public static func parse(_ body: UnsafeRawBufferPointer) throws(WebSocketError) -> (code: UInt16?, reason: String) {
        if body.count == 0 { return (nil, "") }
        // RFC 6455 5.5.1: a body, if present, starts with a two-byte code.
        guard body.count >= 2 else { throw .protocolError("close frame with a 1-byte body") }
        let code = UInt16(body[0]) << 8 | UInt16(body[1])
        guard isValidReceivedCode(code) else { throw .protocolError("invalid close code \(code)") }
        let reason = UnsafeRawBufferPointer(rebasing: body[2...])
        // RFC 6455 5.5.1: the reason is UTF-8.
        guard UTF8Validator.isValid(reason) else { throw .invalidData("close reason is not UTF-8") }
        return (code, String(decoding: reason, as: UTF8.self))
    }

    /// RFC 6455 7.4.1/7.4.2 and the IANA registry: codes a peer may put on the wire.
    /// 1004 is reserved; 1005, 1006 and 1015 are only for reporting locally and
    /// must never be sent; 1012-1014 are registered (service restart, try again
    /// later, bad gateway); 1016-2999 are unassigned; 3000-4999 are for libraries
    /// and applications.
    public static func isValidReceivedCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// The longest prefix of `reason` that fits `maxBytes` without cutting a code point.
    static func truncatedReason(_ reason: String, maxBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in reason.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            if bytes.count + encoded.count > maxBytes { break }
            bytes.append(contentsOf: encoded)
        }
        return bytes
    }
}
