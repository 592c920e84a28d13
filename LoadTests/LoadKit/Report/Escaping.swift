/// Makes arbitrary text (scenario names, notes, error codes) safe inside the
/// HTML report: all of it may come from the command line or the gateway.
/// (The JSON report escapes through `JSONWriter`.)
enum ReportEscaping {
    /// Text for HTML element content and quoted attribute values.
    static func html(_ text: String) -> String {
        replacing(text) { scalar in
            switch scalar {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\"": "&quot;"
            case "'": "&#39;"
            default: nil
            }
        }
    }

    /// `text` with each scalar for which `replacement` has a text replaced by it.
    static func replacing(_ text: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar) { result += replaced } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
