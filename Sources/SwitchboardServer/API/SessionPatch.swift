import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON
import SwitchboardReaders

/// The body of `PATCH /api/v1/sessions/{id}`:
/// `{"title"?: string, "status"?: "open"|"assigned"|"closed", "assigned_operator"?: {"id": string, "name"?: string} | null}`.
/// `status` `open` reopens a closed session or releases an assigned one;
/// `assigned_operator` assigns (a transfer when another holds it) or, null,
/// unassigns, and goes with no `status`.
struct SessionPatch {
    let change: SessionChangeRequest
    static let maxBodyBytes = 8192

    init(_ request: HTTPRequest) throws(ChatError) {
        let object = try JSONBody.object(
            request, maxBytes: Self.maxBodyBytes, allowed: ["title", "status", "assigned_operator"])
        var change = SessionChangeRequest()
        if let raw = object["title"] {
            // Null is refused, as the schema says: a title is never removed.
            guard let title = raw.stringValue else { throw ChatError(.badRequest, "\"title\" must be a string") }
            if let problem = SessionTitle.problem(title) { throw ChatError(.badRequest, problem) }
            change.title = title
        }
        // Null is refused, as the schema says (next to "assigned_operator" it would pass for no conflict).
        if let raw = object["status"] {
            guard let text = raw.stringValue, let status = SessionStatus(rawValue: text) else {
                throw ChatError(.badRequest, "\"status\" must be \"open\", \"assigned\" or \"closed\"")
            }
            change.status = status
        }
        if let raw = object["assigned_operator"] {
            change.assignment = try Self.assignment(raw)
            guard change.status == nil else {
                throw ChatError(.badRequest, "give \"assigned_operator\" or \"status\", not both")
            }
        }
        guard change.title != nil || change.status != nil || change.assignment != nil else {
            throw ChatError(.badRequest, "nothing to change: give \"title\", \"status\" or \"assigned_operator\"")
        }
        self.change = change
    }

    /// `null` (nobody) or `{"id": ..., "name"?: ...}`, with the token's own bounds on both.
    private static func assignment(_ raw: JSONValue) throws(ChatError) -> SessionChangeRequest.Assignment {
        if raw.isNull { return .nobody }
        let shape = "\"assigned_operator\" must be null or {\"id\": string, \"name\"?: string}"
        guard let object = raw.objectValue else { throw ChatError(.badRequest, shape) }
        for key in object.keys where key != "id" && key != "name" { throw ChatError(.badRequest, shape) }
        guard let id = object["id"]?.stringValue, !id.isEmpty, id.utf8.count <= 128 else {
            throw ChatError(.badRequest, "\"assigned_operator.id\" must be a string of 1-128 bytes")
        }
        var name: String?
        if let given = object["name"], !given.isNull {
            guard let text = given.stringValue, !text.isEmpty, text.utf8.count <= 256 else {
                throw ChatError(.badRequest, "\"assigned_operator.name\" must be a string of 1-256 bytes")
            }
            name = text
        }
        return .to(id: id, name: name)
    }
}
