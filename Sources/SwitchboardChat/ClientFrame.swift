import SwitchboardRouting

/// One client-to-server frame (docs/protocol.md, "Client to server"), validated: ids are
/// canonical, strings are within their limits and hold no U+0000.
public enum ClientFrame: Sendable, Equatable {
    case hello(token: String)
    /// `context`: the widget's report on its page (`SessionContext`), canonical JSON text.
    case sessionCreate(title: String?, context: String? = nil)
    case join(sessionID: String, sinceSeq: Int64?)
    case leave(sessionID: String)
    /// `attachments`: ids (canonical, lower-case UUID text) of uploads to the
    /// session, in the order shown; with any, `body` may be empty.
    case send(sessionID: String, clientMessageID: String, body: String, kind: String, attachments: [String] = [])
    case typing(sessionID: String, state: Bool)
    case read(sessionID: String, seq: Int64)
    case inboxSubscribe
    case sessionAssign(sessionID: String, operatorID: String?)
    case sessionClose(sessionID: String)
    /// The status an operator chooses for itself (docs/routing.md).
    case presenceSet(status: OperatorStatus)
    /// A console follows its workspace's operators (`presence.list`, then `presence.updated`).
    case presenceSubscribe
    /// The visitor leaves an address on its session (`contact.email`; our extension, docs/protocol.md).
    case sessionContact(sessionID: String, email: String)
    /// The visitor rates its closed session (docs/protocol.md, "The agent's desk"): 1 to 5, and a
    /// comment of at most `CsatAnswer.maxCommentBytes`.
    case csat(sessionID: String, rating: Int, comment: String?)
    case ping
}

/// A decoded frame with the `ref` the reply must echo.
public struct ClientRequest: Sendable, Equatable {
    public var ref: String?
    public var frame: ClientFrame

    public init(ref: String?, frame: ClientFrame) {
        self.ref = ref
        self.frame = frame
    }
}

/// Per-deployment bounds the decoder enforces. The frame as a whole is already bounded by
/// the WebSocket layer (`max_message_bytes`, close 1009), so only the body needs a limit here.
public struct ChatLimits: Sendable, Equatable {
    /// UTF-8 bytes of a `send` body; more is refused with `too_large`.
    public var maxBodyBytes: Int

    /// Attachments one `send` may carry (docs/protocol.md, "Attachments").
    public static let maxAttachments = 10

    public init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }
}
