import SwitchboardChat
import SwitchboardHTTP
import SwitchboardJSON
import SwitchboardReaders
import SwitchboardWebhooks

/// The bodies of `POST /api/v1/webhooks`
/// (`{"url": string, "events": [string], "description"?: string | null}`)
/// and `PATCH /api/v1/webhooks/{id}` (any of `url`, `events`, `enabled`,
/// `description`, at least one), checked member by member with a 400 that
/// names what is wrong.
enum WebhookEndpointBody {
    static let maxBodyBytes = 8192
    static let maxURLBytes = 2048
    static let maxDescriptionBytes = 1024

    /// What `POST` asks for (the secret is made later, off the loop).
    struct Creation {
        let url: String
        let events: [WebhookEventType]
        let description: String?
    }

    static func creation(_ request: HTTPRequest) throws(ChatError) -> Creation {
        let object = try JSONBody.object(request, maxBytes: maxBodyBytes, allowed: ["url", "events", "description"])
        guard let raw = object["url"], !raw.isNull else { throw .badRequest("\"url\" is required") }
        guard let rawEvents = object["events"], !rawEvents.isNull else {
            throw .badRequest("\"events\" is required: a list of \(known)")
        }
        return Creation(url: try url(raw), events: try events(rawEvents), description: try description(object))
    }

    static func change(_ request: HTTPRequest) throws(ChatError) -> WebhookEndpointChange {
        let object = try JSONBody.object(
            request, maxBytes: maxBodyBytes, allowed: ["url", "events", "enabled", "description"])
        var change = WebhookEndpointChange()
        if let raw = object["url"] { change.url = try url(raw) }
        if let raw = object["events"] { change.events = try events(raw) }
        if let raw = object["enabled"] {
            guard case .bool(let enabled) = raw else { throw .badRequest("\"enabled\" must be true or false") }
            change.enabled = enabled
        }
        if object["description"] != nil { change.description = .some(try description(object)) }
        guard !change.isEmpty else {
            throw .badRequest("nothing to change: give \"url\", \"events\", \"enabled\" or \"description\"")
        }
        return change
    }

    /// An absolute `https` or `http` URL with a host, no credentials, no
    /// fragment, no spaces or control characters, at most 2048 bytes.
    /// Whether its host may be reached is the target check's question.
    static func url(_ raw: JSONValue) throws(ChatError) -> String {
        guard let text = raw.stringValue else { throw .badRequest("\"url\" must be a string") }
        if let problem = urlProblem(text) { throw .badRequest("\"url\" \(problem)") }
        return text
    }

    static func urlProblem(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maxURLBytes else {
            return "must be 1 to \(maxURLBytes) bytes long"
        }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            return "must not contain spaces or control characters"
        }
        let lowered = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else {
            return "must be an https:// or http:// URL"
        }
        let rest = text.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if text.contains("#") { return "must not have a fragment" }
        if authority.contains("@") { return "must not carry credentials (user@host)" }
        var host = Substring(authority)
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return "has an unclosed IPv6 address" }
            let after = host[host.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return "has a malformed host" }
            if after.hasPrefix(":"), let problem = portProblem(after.dropFirst()) { return problem }
            host = host[host.index(after: host.startIndex)..<close]
        } else if let colon = host.lastIndex(of: ":") {
            if let problem = portProblem(host[host.index(after: colon)...]) { return problem }
            host = host[..<colon]
        }
        return host.isEmpty ? "must name a host" : nil
    }

    private static func portProblem(_ port: Substring) -> String? {
        guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber),
            let number = Int(port), (1...65535).contains(number)
        else { return "has a port that is not 1 to 65535" }
        return nil
    }

    /// A non-empty list of distinct event names the protocol knows.
    static func events(_ raw: JSONValue) throws(ChatError) -> [WebhookEventType] {
        guard case .array(let items) = raw, !items.isEmpty else {
            throw .badRequest("\"events\" must be a non-empty list of \(known)")
        }
        var events: [WebhookEventType] = []
        for item in items {
            guard let name = item.stringValue, let type = WebhookEventType(rawValue: name) else {
                throw .badRequest("\"events\" may hold only \(known)")
            }
            guard !events.contains(type) else { throw .badRequest("\"events\" names \(name) twice") }
            events.append(type)
        }
        return events
    }

    /// `description`: a string of at most 1024 bytes, or null (none).
    private static func description(_ object: JSONObject) throws(ChatError) -> String? {
        guard let text = try JSONBody.string(object, "description") else { return nil }
        guard text.utf8.count <= maxDescriptionBytes, !text.utf8.contains(0) else {
            throw .badRequest("\"description\" must be at most \(maxDescriptionBytes) bytes, without NUL")
        }
        return text
    }

    private static var known: String {
        WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")
    }
}
