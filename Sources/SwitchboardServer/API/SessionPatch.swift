import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON

/// The body of `PATCH /api/v1/sessions/{id}`: `{"title"?: string, "status"?: "open"|"assigned"|"closed"}`.
struct SessionPatch {
    var title: String?
    var status: SessionStatus?

    init(_ request: HTTPRequest) throws(ChatError) {
        let contentType = request.headers.first("Content-Type")?.lowercased() ?? ""
        guard contentType == "application/json" || contentType.hasPrefix("application/json;") else {
            throw ChatError(.badRequest, "Content-Type must be application/json")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(
                request.body, limits: JSONLimits(maxDepth: 4, maxStringBytes: 4096, maxMembers: 16, maxTotalBytes: 8192)
            )
        } catch {
            throw ChatError(.badRequest, "the body is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else { throw ChatError(.badRequest, "the body must be a JSON object") }
        for key in object.keys where key != "title" && key != "status" {
            throw ChatError(.badRequest, "unknown field \"\(key)\" (only \"title\" and \"status\" can change)")
        }
        if let raw = object["title"], !raw.isNull {
            // Counted in code points, as JSON Schema's maxLength (docs/openapi.yaml) counts them.
            guard let title = raw.stringValue, !title.isEmpty, title.unicodeScalars.count <= 200,
                !title.utf8.contains(0)
            else {
                throw ChatError(.badRequest, "\"title\" must be a string of 1 to 200 characters without NUL")
            }
            self.title = title
        }
        if let raw = object["status"], !raw.isNull {
            guard let text = raw.stringValue, let status = SessionStatus(rawValue: text) else {
                throw ChatError(.badRequest, "\"status\" must be \"open\", \"assigned\" or \"closed\"")
            }
            self.status = status
        }
        guard title != nil || status != nil else {
            throw ChatError(.badRequest, "nothing to change: give \"title\" and/or \"status\"")
        }
    }
}
