import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON

/// The bodies of `POST /api/v1/canned-replies` (`{"shortcut","body"}`) and
/// `PATCH /api/v1/canned-replies/{id}` (either, at least one), checked
/// member by member with a 400 that names what is wrong.
enum CannedReplyBody {
    static let maxBodyBytes = 16384
    static let maxReplyBytes = 4096
    static let maxShortcutBytes = 32

    struct Fields {
        var shortcut: String?
        var body: String?
    }

    static func creation(_ request: HTTPRequest) throws(ChatError) -> (shortcut: String, body: String) {
        let fields = try self.fields(request)
        guard let shortcut = fields.shortcut else { throw .badRequest("\"shortcut\" is required") }
        guard let body = fields.body else { throw .badRequest("\"body\" is required") }
        return (shortcut, body)
    }

    static func change(_ request: HTTPRequest) throws(ChatError) -> Fields {
        let fields = try self.fields(request)
        guard fields.shortcut != nil || fields.body != nil else {
            throw .badRequest("nothing to change: give \"shortcut\" or \"body\"")
        }
        return fields
    }

    private static func fields(_ request: HTTPRequest) throws(ChatError) -> Fields {
        let object = try JSONBody.object(request, maxBytes: maxBodyBytes, allowed: ["shortcut", "body"])
        // Null is no value here: a reply has both, and a change names what it changes.
        for key in ["shortcut", "body"] where object[key]?.isNull == true {
            throw .badRequest("\"\(key)\" must be a string, not null")
        }
        var fields = Fields()
        if let shortcut = try JSONBody.string(object, "shortcut") {
            if let problem = shortcutProblem(shortcut) { throw .badRequest("\"shortcut\" \(problem)") }
            fields.shortcut = shortcut
        }
        if let body = try JSONBody.string(object, "body") {
            if let problem = bodyProblem(body) { throw .badRequest("\"body\" \(problem)") }
            fields.body = body
        }
        return fields
    }

    /// 1 to 32 of `a-z`, `0-9`, `-`, `_`, starting with a letter or a digit: what follows `/` in a composer.
    static func shortcutProblem(_ shortcut: String) -> String? {
        let bytes = Array(shortcut.utf8)
        guard (1...maxShortcutBytes).contains(bytes.count) else { return "must be 1 to \(maxShortcutBytes) characters" }
        func allowed(_ byte: UInt8, first: Bool) -> Bool {
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || (!first && (byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")))
        }
        for (index, byte) in bytes.enumerated() where !allowed(byte, first: index == 0) {
            return "may hold lower-case letters, digits, \"-\" and \"_\", and starts with a letter or a digit"
        }
        return nil
    }

    static func bodyProblem(_ body: String) -> String? {
        if body.utf8.count > maxReplyBytes { return "is \(body.utf8.count) bytes; at most \(maxReplyBytes) are kept" }
        // Blank: ASCII spaces, tabs and line breaks alone (what the OpenAPI pattern says, exactly).
        if body.utf8.allSatisfy({ (9...13).contains($0) || $0 == 32 }) { return "must not be empty or blank" }
        if body.utf8.contains(0) { return "must not contain NUL characters" }
        return nil
    }
}
