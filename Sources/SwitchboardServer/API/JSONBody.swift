import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON

/// A request body that must be one small JSON object: the content type is
/// checked, the size bounded (413 before parsing), the parse limited, and
/// every key must be one the endpoint knows, so a typo is an error.
enum JSONBody {
    static func object(
        _ request: HTTPRequest, maxBytes: Int, allowed: [String], maxMembers: Int = 16
    ) throws(ChatError) -> JSONObject {
        let contentType = request.headers.first("Content-Type")?.lowercased() ?? ""
        guard contentType == "application/json" || contentType.hasPrefix("application/json;") else {
            throw ChatError(.badRequest, "Content-Type must be application/json")
        }
        guard request.body.count <= maxBytes else {
            throw ChatError(.tooLarge, "the body is \(request.body.count) bytes; at most \(maxBytes) are accepted")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(
                request.body,
                limits: JSONLimits(maxDepth: 4, maxStringBytes: 4096, maxMembers: maxMembers, maxTotalBytes: maxBytes))
        } catch {
            throw ChatError(.badRequest, "the body is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else { throw ChatError(.badRequest, "the body must be a JSON object") }
        for key in object.keys where !allowed.contains(key) {
            let known = allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            throw ChatError(.badRequest, "unknown field \"\(key)\" (known: \(known))")
        }
        return object
    }

    /// The string member `key` (nil when absent or null); anything else is a 400 naming it.
    static func string(_ object: JSONObject, _ key: String) throws(ChatError) -> String? {
        guard let raw = object[key], !raw.isNull else { return nil }
        guard let text = raw.stringValue else { throw ChatError(.badRequest, "\"\(key)\" must be a string") }
        return text
    }
}
