import SwitchboardChat
import SwitchboardRouting

/// What one gateway node tells the others. The bus is only a fast hint: the
/// database holds the truth, and a node that misses an event reads what it
/// lacks from there (`ChatCore`'s repairs and catch-up).
public enum BusEvent: Sendable, Equatable {
    /// Committed messages in commit order, with the state each changed
    /// session was left in (as the writer's own results carry them).
    case committed(messages: [ChatMessage], sessions: [SessionInfo])
    /// Committed messages too many to carry: each session's new `seq` range,
    /// for the listeners to read.
    case ranges([CommittedRange])
    /// `typing` or `read`: an encoded frame for a session's subscribers.
    case sessionFrame(sessionID: String, payload: [UInt8])
    /// A session was created or changed (assign, close, PATCH, DELETE).
    case sessionChanged(SessionInfo)
    /// A session changed whose state did not fit in a notification: read it.
    case sessionStale(sessionID: String, workspaceID: String)
    /// Operators of a workspace as they are now (changed, or the whole list):
    /// each node tells its consoles the ones that differ from what it told.
    /// `complete`: the whole list, which also says whether anyone is available.
    case presence(workspaceID: String, operators: [OperatorPresence], complete: Bool)
    /// A routing pass's outcome: the queue's head and whether anyone has room
    /// (visitors' `availability`).
    case queue(RoutingSnapshot)
    /// Presence or the queue of a workspace changed and did not fit in a
    /// notification: nodes that follow it read it.
    case routingStale(workspaceID: String)

    /// The session the event is about, when there is exactly one (NATS subjects are per session).
    public var sessionID: String? {
        switch self {
        case .sessionFrame(let id, _): id
        case .sessionChanged(let session): session.id
        case .sessionStale(let id, _): id
        case .committed(let messages, _): messages.first?.sessionID
        case .ranges(let ranges): ranges.count == 1 ? ranges[0].sessionID : nil
        case .presence, .queue, .routingStale: nil
        }
    }

    /// The workspace of a routing event (NATS sends those on the workspace's subject).
    public var routingWorkspaceID: String? {
        switch self {
        case .presence(let workspaceID, _, _), .routingStale(let workspaceID): workspaceID
        case .queue(let snapshot): snapshot.workspaceID
        case .committed, .ranges, .sessionFrame, .sessionChanged, .sessionStale: nil
        }
    }
}

/// The messages `firstSeq...lastSeq` of one session were committed.
public struct CommittedRange: Sendable, Equatable {
    public let sessionID: String
    /// Nil only if the sender did not know it (the session's state rode on no row).
    public let workspaceID: String?
    public let firstSeq: Int64
    public let lastSeq: Int64

    public init(sessionID: String, workspaceID: String?, firstSeq: Int64, lastSeq: Int64) {
        self.sessionID = sessionID
        self.workspaceID = workspaceID
        self.firstSeq = firstSeq
        self.lastSeq = lastSeq
    }
}

/// One event as it crossed the bus: who sent it and when.
public struct BusNotification: Sendable, Equatable {
    /// The sending node's `cluster.node_id`.
    public let node: String
    /// When it was sent, in microseconds since the Unix epoch (the sender's
    /// clock: the cross-node latency histogram assumes synchronized clocks).
    public let sentAtMicroseconds: Int64
    public let event: BusEvent

    public init(node: String, sentAtMicroseconds: Int64, event: BusEvent) {
        self.node = node
        self.sentAtMicroseconds = sentAtMicroseconds
        self.event = event
    }
}
