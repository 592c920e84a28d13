import SwitchboardJSON
import SwitchboardRouting

/// Turns one WebSocket text message into a `ClientRequest`, or the `ChatError` to send back.
public enum ClientFrameDecoder {
    /// One text message's payload (UTF-8 already validated by the WebSocket layer).
    public static func decode(_ payload: UnsafeRawBufferPointer, limits: ChatLimits) -> Result<ClientRequest, ChatError>
    {
        do {
            return .success(try request(payload, limits: limits))
        } catch {
            return .failure(error)
        }
    }

    public static func decode(_ payload: [UInt8], limits: ChatLimits) -> Result<ClientRequest, ChatError> {
        payload.withUnsafeBytes { decode($0, limits: limits) }
    }

    /// Parser bounds for a chat frame. Frames are flat objects (depth 1), so a little slack for
    /// future nested fields is enough; the member cap keeps duplicate-key checks and lookups cheap.
    /// Strings are not capped below the payload size: a decoded string is never longer than its
    /// source text, and an oversized body must reach the `too_large` check rather than fail parsing.
    static func jsonLimits(payloadBytes: Int) -> JSONLimits {
        JSONLimits(maxDepth: 6, maxStringBytes: payloadBytes, maxMembers: 64, maxTotalBytes: payloadBytes)
    }

    static func request(_ payload: UnsafeRawBufferPointer, limits: ChatLimits) throws(ChatError) -> ClientRequest {
        let document: JSONValue
        do {
            document = try JSONParser.parse(payload, limits: jsonLimits(payloadBytes: payload.count))
        } catch {
            throw ChatError(.badRequest, "malformed JSON: \(error)")
        }
        guard case .object(let object) = document else {
            throw ChatError(.badRequest, "a frame must be a JSON object")
        }
        // The ref first, so that every later refusal can carry it.
        let ref = try readRef(object)
        let fields = FrameFields(object: object, ref: ref)
        let type = try fields.requiredString("type", maxBytes: Int.max)
        return ClientRequest(ref: ref, frame: try frame(type: type, fields, limits: limits))
    }

    static func readRef(_ object: JSONObject) throws(ChatError) -> String? {
        switch object["ref"] {
        case nil, .null?:
            return nil
        case .string(let ref)?:
            guard ref.utf8.count <= 128 else { throw ChatError(.badRequest, "\"ref\" must be at most 128 bytes") }
            guard !ref.utf8.contains(0) else { throw ChatError(.badRequest, "\"ref\" must not contain U+0000") }
            return ref
        case _?:
            throw ChatError(.badRequest, "\"ref\" must be a string")
        }
    }

    static func frame(type: String, _ fields: FrameFields, limits: ChatLimits) throws(ChatError) -> ClientFrame {
        switch type {
        case "hello":
            return .hello(token: try fields.requiredString("token", maxBytes: Int.max))
        case "session.create":
            let title = try fields.optionalString("title", maxBytes: 4 * SessionTitle.maxCharacters, allowEmpty: true)
            if let title, let problem = SessionTitle.problem(title) { throw fields.invalid(problem) }
            var context: String?
            if let raw = fields.member("context") {
                switch SessionContext.parse(raw) {
                case .success(let canonical): context = canonical
                case .failure(let problem): throw fields.invalid("\"context\" \(problem.message)")
                }
            }
            return .sessionCreate(title: title, context: context)
        case "join":
            return .join(sessionID: try fields.sessionID(), sinceSeq: try fields.optionalSeq("since_seq"))
        case "leave":
            return .leave(sessionID: try fields.sessionID())
        case "send":
            let sessionID = try fields.sessionID()
            let clientMessageID = try fields.requiredString("client_msg_id", maxBytes: 128)
            let attachments = try fields.attachments()
            return .send(
                sessionID: sessionID, clientMessageID: clientMessageID,
                body: try fields.body(maxBytes: limits.maxBodyBytes, allowEmpty: !attachments.isEmpty),
                kind: try fields.kind(), attachments: attachments)
        case "typing":
            return .typing(sessionID: try fields.sessionID(), state: try fields.requiredBool("state"))
        case "read":
            return .read(sessionID: try fields.sessionID(), seq: try fields.requiredSeq("seq"))
        case "inbox.subscribe":
            return .inboxSubscribe
        case "session.assign":
            return .sessionAssign(
                sessionID: try fields.sessionID(),
                operatorID: try fields.optionalString("operator_id", maxBytes: 128, allowEmpty: false))
        case "session.close":
            return .sessionClose(sessionID: try fields.sessionID())
        case "presence.set":
            let text = try fields.requiredString("status", maxBytes: 16)
            guard let status = OperatorStatus(rawValue: text) else {
                throw fields.invalid("\"status\" must be \"online\", \"away\" or \"offline\"")
            }
            return .presenceSet(status: status)
        case "presence.subscribe":
            return .presenceSubscribe
        case "session.contact":
            let sessionID = try fields.sessionID()
            let email = try fields.requiredString("email", maxBytes: ContactEmail.maxBytes)
            if let problem = ContactEmail.problem(email) { throw fields.invalid(problem) }
            return .sessionContact(sessionID: sessionID, email: email)
        case "csat":
            let sessionID = try fields.sessionID()
            guard let rating = fields.member("rating")?.int64Value, (1...5).contains(rating)
            else { throw fields.invalid("\"rating\" must be an integer from 1 to 5") }
            let comment = try fields.optionalString("comment", maxBytes: CsatAnswer.maxCommentBytes, allowEmpty: true)
            return .csat(sessionID: sessionID, rating: Int(rating), comment: comment.flatMap { $0.isEmpty ? nil : $0 })
        case "ping":
            return .ping
        default:
            // Echo short names only: the reply should not amplify whatever the client sent.
            let shown = type.utf8.count <= 64 ? " \"\(type)\"" : ""
            throw fields.invalid("unknown type\(shown)")
        }
    }
}
