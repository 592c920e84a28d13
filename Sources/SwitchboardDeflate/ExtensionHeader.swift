/// One extension of a `Sec-WebSocket-Extensions` list: its token and its
/// parameters in order (a parameter without `=value` has a nil value).
public struct ExtensionOffer: Equatable, Sendable {
    public var name: String
    public var parameters: [Parameter]

    public struct Parameter: Equatable, Sendable {
        public var name: String
        public var value: String?

        public init(name: String, value: String?) {
            self.name = name
            self.value = value
        }
    }

    public init(name: String, parameters: [Parameter]) {
        self.name = name
        self.parameters = parameters
    }
}

/// Parser for the `Sec-WebSocket-Extensions` grammar (RFC 6455 9.1):
///
///     extension-list = 1#extension
///     extension      = extension-token *( ";" extension-param )
///     extension-param = token [ "=" (token | quoted-string) ]
///
/// A quoted value must itself be a token once unquoted (RFC 6455 9.1). Parsing
/// is byte-wise and never splits on a comma inside quotes.
public enum ExtensionHeader {
    /// All extensions of one header value, or nil when the value does not follow
    /// the grammar (the caller then declines every offer in it).
    public static func parse(_ value: String) -> [ExtensionOffer]? {
        var bytes = Array(value.utf8)[...]
        var result: [ExtensionOffer] = []
        while true {
            skipWhitespace(&bytes)
            // RFC 7230 7: empty list elements (",,") are allowed and ignored.
            if bytes.first == UInt8(ascii: ",") {
                bytes.removeFirst()
                continue
            }
            if bytes.isEmpty { break }
            guard let name = token(&bytes) else { return nil }
            var offer = ExtensionOffer(name: name, parameters: [])
            skipWhitespace(&bytes)
            while bytes.first == UInt8(ascii: ";") {
                bytes.removeFirst()
                skipWhitespace(&bytes)
                guard let parameterName = token(&bytes) else { return nil }
                skipWhitespace(&bytes)
                var parameterValue: String?
                if bytes.first == UInt8(ascii: "=") {
                    bytes.removeFirst()
                    skipWhitespace(&bytes)
                    if bytes.first == UInt8(ascii: "\"") {
                        guard let quoted = quotedString(&bytes) else { return nil }
                        parameterValue = quoted
                    } else {
                        guard let plain = token(&bytes) else { return nil }
                        parameterValue = plain
                    }
                    skipWhitespace(&bytes)
                }
                offer.parameters.append(.init(name: parameterName, value: parameterValue))
            }
            result.append(offer)
            if bytes.isEmpty { break }
            guard bytes.first == UInt8(ascii: ",") else { return nil }
            bytes.removeFirst()
        }
        return result
    }

    private static func skipWhitespace(_ bytes: inout ArraySlice<UInt8>) {
        while let b = bytes.first, b == UInt8(ascii: " ") || b == UInt8(ascii: "\t") {
            bytes.removeFirst()
        }
    }

    private static func token(_ bytes: inout ArraySlice<UInt8>) -> String? {
        let length = bytes.prefix(while: isTokenByte).count
        guard length > 0 else { return nil }
        let text = String(decoding: bytes.prefix(length), as: UTF8.self)
        bytes.removeFirst(length)
        return text
    }

    /// RFC 7230 3.2.6 quoted-string; the unquoted text must be a token.
    private static func quotedString(_ bytes: inout ArraySlice<UInt8>) -> String? {
        bytes.removeFirst()  // opening quote
        var text: [UInt8] = []
        while let b = bytes.first {
            bytes.removeFirst()
            switch b {
            case UInt8(ascii: "\""):
                guard !text.isEmpty, text.allSatisfy(isTokenByte) else { return nil }
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = bytes.first else { return nil }
                bytes.removeFirst()
                text.append(escaped)
            default:
                text.append(b)
            }
        }
        return nil  // unterminated
    }

    /// RFC 7230 3.2.6: tchar.
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }
}
