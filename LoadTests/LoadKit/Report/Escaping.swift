/// Makes arbitrary text (scenario names, notes, error codes) safe inside the
/// HTML report: all of it may come from the command line or the gateway.
/// (The JSON report escapes through `JSONWriter`.)
enum ReportEscaping {
    /// Text for HTML element content and quoted attribute values.
    static func html(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
