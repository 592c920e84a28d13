/// Server side of the permessage-deflate negotiation (RFC 7692 5 and 7.1).
public enum DeflateNegotiation {
    public static let extensionName = "permessage-deflate"

    /// Chooses the first acceptable permessage-deflate offer among all
    /// `Sec-WebSocket-Extensions` header values, in order (RFC 7692 5.1: the
    /// client lists offers by preference). Returns nil when deflate is disabled,
    /// nothing was offered, or every offer had to be declined.
    public static func negotiate(
        offerHeader values: [String], configuration: DeflateConfiguration
    ) -> (parameters: DeflateParameters, responseHeaderValue: String)? {
        guard configuration.enabled else { return nil }
        for value in values {
            // A header value that breaks the grammar cannot be interpreted safely;
            // skip it entirely but keep looking at the other values.
            guard let offers = ExtensionHeader.parse(value) else { continue }
            for offer in offers where offer.name.lowercased() == extensionName {
                if let accepted = accept(offer, configuration: configuration) {
                    return accepted
                }
            }
        }
        return nil
    }

    /// Accepts one offer, or declines it (nil) when a parameter is unknown,
    /// repeated or has an invalid value (RFC 7692 7.1: "the server MUST decline").
    static func accept(
        _ offer: ExtensionOffer, configuration: DeflateConfiguration
    ) -> (parameters: DeflateParameters, responseHeaderValue: String)? {
        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        var requestedServerWindow: Int?
        var clientWindowOffered = false
        var requestedClientWindow: Int?
        var seen: Set<String> = []

        for parameter in offer.parameters {
            let name = parameter.name.lowercased()
            guard seen.insert(name).inserted else { return nil }
            switch name {
            case "server_no_context_takeover":
                // RFC 7692 7.1.1.1: this parameter has no value.
                guard parameter.value == nil else { return nil }
                serverNoContextTakeover = true
            case "client_no_context_takeover":
                // RFC 7692 7.1.1.2: this parameter has no value.
                guard parameter.value == nil else { return nil }
                clientNoContextTakeover = true
            case "server_max_window_bits":
                // RFC 7692 7.1.2.1: a value is required.
                guard let text = parameter.value, let bits = windowBits(text) else { return nil }
                requestedServerWindow = bits
            case "client_max_window_bits":
                // RFC 7692 7.1.2.2: the value is optional in an offer ("I support it").
                clientWindowOffered = true
                if let text = parameter.value {
                    guard let bits = windowBits(text) else { return nil }
                    requestedClientWindow = bits
                }
            default:
                return nil
            }
        }

        // Our own preference may add server_no_context_takeover (RFC 7692 7.1.1.1
        // lets the server include it even when not offered).
        serverNoContextTakeover = serverNoContextTakeover || configuration.serverNoContextTakeover
        let serverWindow = min(requestedServerWindow ?? 15, configuration.serverMaxWindowBits)
        let clientWindow = requestedClientWindow ?? 15
        let parameters = DeflateParameters(
            serverNoContextTakeover: serverNoContextTakeover,
            clientNoContextTakeover: clientNoContextTakeover,
            serverMaxWindowBits: serverWindow,
            clientMaxWindowBits: clientWindow
        )

        var response = extensionName
        if serverNoContextTakeover { response += "; server_no_context_takeover" }
        if clientNoContextTakeover { response += "; client_no_context_takeover" }
        if requestedServerWindow != nil || serverWindow < 15 {
            response += "; server_max_window_bits=\(serverWindow)"
        }
        // RFC 7692 7.1.2.2: client_max_window_bits may appear in the response only
        // when the offer carried it; echo a value the client itself proposed.
        if clientWindowOffered, let bits = requestedClientWindow {
            response += "; client_max_window_bits=\(bits)"
        }
        return (parameters, response)
    }

    /// RFC 7692 7.1.2: a decimal integer 8...15 without leading zeros.
    private static func windowBits(_ text: String) -> Int? {
        let utf8 = Array(text.utf8)
        guard (1...2).contains(utf8.count), utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), utf8[0] != 0x30,
            let bits = Int(text), (8...15).contains(bits)
        else { return nil }
        return bits
    }
}
