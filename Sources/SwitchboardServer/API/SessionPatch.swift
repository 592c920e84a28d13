import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON

/// The body of `PATCH /api/v1/sessions/{id}`: `{"title"?: string, "status"?: "open"|"assigned"|"closed"}`.
struct SessionPatch {
    var title: String?
    var status: SessionStatus?
    static let maxBodyBytes = 8192

    init(_ request: HTTPRequest) throws(ChatError) {
        let contentType = request.headers.first("Content-Type")?.lowercased() ?? ""
        guard contentType == "application/json" || contentType.hasPrefix("application/json;") else {
            throw ChatError(.badRequest, "Content-Type must be application/json")
        }
        // Checked before parsing, so an oversized body is 413 (docs/openapi.yaml), not "invalid JSON".
        guard request.body.count <= Self.maxBodyBytes else {
            throw ChatError(
                .tooLarge, "the body is \(request.body.count) bytes; at most \(Self.maxBodyBytes) are accepted")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(
                request.body,
                limits: JSONLimits(maxDepth: 4, maxStringBytes: 4096, maxMembers: 16, maxTotalBytes: Self.maxBodyBytes))
        } catch {
            throw ChatError(.badRequest, "the body is not valid JSON: \(error)")
        }
        guard let object = value.objectValue else { throw ChatError(.badRequest, "the body must be a JSON object") }
        for key in object.keys where key != "title" && key != "status" {
            throw ChatError(.badRequest, "unknown field \"\(key)\" (only \"title\" and \"status\" can change)")
        }
        if let raw = object["title"], !raw.isNull {
            guard let title = raw.stringValue else { throw ChatError(.badRequest, "\"title\" must be a string") }
            if let problem = SessionTitle.problem(title) { throw ChatError(.badRequest, problem) }
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
