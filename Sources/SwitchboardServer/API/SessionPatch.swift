import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON

/// The body of `PATCH /api/v1/sessions/{id}`: `{"title"?: string, "status"?: "open"|"assigned"|"closed"}`.
struct SessionPatch {
    var title: String?
    var status: SessionStatus?
    static let maxBodyBytes = 8192

    init(_ request: HTTPRequest) throws(ChatError) {
        let object = try JSONBody.object(request, maxBytes: Self.maxBodyBytes, allowed: ["title", "status"])
        if let title = try JSONBody.string(object, "title") {
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
