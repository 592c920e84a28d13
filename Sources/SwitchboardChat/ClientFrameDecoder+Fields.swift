import SwitchboardIdentifiers
import SwitchboardJSON

/// Typed access to one frame's members. Every refusal is a `bad_request` (except an oversized
/// body) carrying the frame's ref, with a message that names the field.
struct FrameFields {
    let object: JSONObject
    let ref: String?

    func invalid(_ message: String, code: ChatErrorCode = .badRequest) -> ChatError {
        ChatError(code, message, ref: ref)
    }

    /// The member, with JSON `null` treated as absent: clients commonly serialise unset optionals as null.
    func member(_ name: String) -> JSONValue? {
        switch object[name] {
        case nil, .null?: return nil
        case let value?: return value
        }
    }

    func requiredString(_ name: String, maxBytes: Int) throws(ChatError) -> String {
        guard let value = try optionalString(name, maxBytes: maxBytes, allowEmpty: false) else {
            throw invalid("\"\(name)\" is required")
        }
        return value
    }

    func optionalString(_ name: String, maxBytes: Int, allowEmpty: Bool) throws(ChatError) -> String? {
        guard let value = member(name) else { return nil }
        guard case .string(let string) = value else { throw invalid("\"\(name)\" must be a string") }
        let bytes = string.utf8.count
        if bytes == 0 && !allowEmpty { throw invalid("\"\(name)\" must not be empty") }
        if bytes > maxBytes { throw invalid("\"\(name)\" must be at most \(maxBytes) bytes") }
        try checkNoNUL(name, string)
        return string
    }

    /// PostgreSQL `text` cannot store U+0000, so it is refused at the door rather than failing the insert.
    func checkNoNUL(_ name: String, _ string: String) throws(ChatError) {
        if string.utf8.contains(0) { throw invalid("\"\(name)\" must not contain U+0000") }
    }

    /// `session_id`: canonical UUID text, returned lower-cased so it compares equal to the database's output.
    func sessionID() throws(ChatError) -> String {
        guard let value = member("session_id") else { throw invalid("\"session_id\" is required") }
        guard case .string(let string) = value, let canonical = UUIDText.canonical(string) else {
            throw invalid("\"session_id\" must be a UUID")
        }
        return canonical
    }

    func optionalSeq(_ name: String) throws(ChatError) -> Int64? {
        guard let value = member(name) else { return nil }
        guard let seq = value.int64Value, seq >= 0 else { throw invalid("\"\(name)\" must be a non-negative integer") }
        return seq
    }

    func requiredSeq(_ name: String) throws(ChatError) -> Int64 {
        guard let seq = try optionalSeq(name) else { throw invalid("\"\(name)\" is required") }
        return seq
    }

    func requiredBool(_ name: String) throws(ChatError) -> Bool {
        guard let value = member(name) else { throw invalid("\"\(name)\" is required") }
        guard case .bool(let bool) = value else { throw invalid("\"\(name)\" must be a boolean") }
        return bool
    }

    /// `body`: non-empty unless the message has attachments; over `maxBytes` UTF-8 bytes is `too_large`,
    /// the one non-`bad_request` refusal.
    func body(maxBytes: Int, allowEmpty: Bool = false) throws(ChatError) -> String {
        guard let value = member("body") else { throw invalid("\"body\" is required") }
        guard case .string(let body) = value else { throw invalid("\"body\" must be a string") }
        let bytes = body.utf8.count
        if bytes == 0 && !allowEmpty {
            throw invalid("\"body\" must not be empty (unless the message has attachments)")
        }
        if bytes > maxBytes {
            throw invalid("\"body\" is \(bytes) bytes, over the limit of \(maxBytes) bytes", code: .tooLarge)
        }
        try checkNoNUL("body", body)
        return body
    }

    /// `attachments`: absent, null or an array of at most `ChatLimits.maxAttachments` distinct upload
    /// ids, each canonical UUID text, returned lower-cased (as the database spells them).
    func attachments() throws(ChatError) -> [String] {
        guard let value = member("attachments") else { return [] }
        guard case .array(let elements) = value else {
            throw invalid("\"attachments\" must be an array of attachment ids")
        }
        guard elements.count <= ChatLimits.maxAttachments else {
            throw invalid(
                "\"attachments\" holds \(elements.count) ids; a message may carry at most \(ChatLimits.maxAttachments)")
        }
        var ids: [String] = []
        ids.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element, let id = UUIDText.canonical(text) else {
                throw invalid("\"attachments\"[\(index)] must be an attachment id (a UUID)")
            }
            if ids.contains(id) { throw invalid("\"attachments\" lists attachment \(id) twice") }
            ids.append(id)
        }
        return ids
    }

    /// `kind`: defaults to `text`; a short lower-case token so it is safe in logs, metrics and CSS classes.
    func kind() throws(ChatError) -> String {
        guard let value = member("kind") else { return "text" }
        guard case .string(let kind) = value else { throw invalid("\"kind\" must be a string") }
        let utf8 = kind.utf8
        let valid =
            (1...32).contains(utf8.count)
            && utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                    return true
                default:
                    return false
                }
            }
        guard valid else { throw invalid("\"kind\" must be 1-32 bytes of a-z, 0-9, '_', '.' or '-'") }
        return kind
    }
}
