import SwitchboardChat

/// One message a search found (docs/protocol.md, "The agent's desk"): where it
/// is (session, seq), who wrote it, and the part of its body around the
/// matched words.
public struct SearchHit: Sendable, Equatable {
    /// The message's UUID text.
    public var id: String
    public var sessionID: String
    public var seq: Int64
    /// `text` or `note` (system lines are not searched).
    public var kind: String
    public var sender: Participant
    /// RFC 3339.
    public var createdAt: String
    /// Up to about 30 words of the body, plain text, with each matched word
    /// as a part of its own.
    public var snippet: [SnippetPart]
    public var sessionTitle: String
    public var sessionStatus: String
    /// The session's visitor (`sub` of its token).
    public var visitorID: String

    public init(
        id: String, sessionID: String, seq: Int64, kind: String, sender: Participant, createdAt: String,
        snippet: [SnippetPart], sessionTitle: String, sessionStatus: String, visitorID: String
    ) {
        self.id = id
        self.sessionID = sessionID
        self.seq = seq
        self.kind = kind
        self.sender = sender
        self.createdAt = createdAt
        self.snippet = snippet
        self.sessionTitle = sessionTitle
        self.sessionStatus = sessionStatus
        self.visitorID = visitorID
    }
}

/// A run of a snippet's text, matched by the query or not.
public struct SnippetPart: Sendable, Equatable {
    public var text: String
    public var matched: Bool

    public init(_ text: String, matched: Bool) {
        self.text = text
        self.matched = matched
    }

    /// The marks the query asks PostgreSQL's `ts_headline` to put around each
    /// matched word: private-use characters, removed from the body first, so
    /// a message can never forge a highlight.
    static let start: Unicode.Scalar = "\u{E000}"
    static let stop: Unicode.Scalar = "\u{E001}"
    /// Stands in for `<` inside `ts_headline`, which drops anything shaped
    /// like an HTML tag from a snippet; turned back into `<` here.
    static let lessThan: Unicode.Scalar = "\u{E002}"

    /// `ts_headline`'s marked text as parts; an unbalanced mark (none can be,
    /// the body is cleaned of them) ends the highlight at the text's end.
    static func parts(_ marked: String) -> [SnippetPart] {
        var parts: [SnippetPart] = []
        var current = String.UnicodeScalarView()
        var matched = false
        func flush() {
            if !current.isEmpty { parts.append(SnippetPart(String(current), matched: matched)) }
            current = String.UnicodeScalarView()
        }
        for scalar in marked.unicodeScalars {
            switch scalar {
            case start:
                flush()
                matched = true
            case stop:
                flush()
                matched = false
            case lessThan:
                current.append("<")
            default:
                current.append(scalar)
            }
        }
        flush()
        return parts
    }
}

/// One page of search results; `nextCursor` is nil on the last page.
public struct SearchPage: Sendable, Equatable {
    public var hits: [SearchHit]
    public var nextCursor: String?

    public init(hits: [SearchHit], nextCursor: String?) {
        self.hits = hits
        self.nextCursor = nextCursor
    }
}
