/// The routing scenario's judge: every event the harness sees goes through
/// `observe`, in the order it saw them, and each of routing's promises
/// (PROTOCOL.md, "Routing") is checked as soon as what the harness saw can
/// prove it broken, never before: a violation is a fact, not a suspicion.
///
/// - **Capacity**: when a session is first seen assigned to an operator, that
///   operator's sessions seen assigned and not closed are counted; a session
///   whose `session.close` is still in flight is not counted (its close may
///   have committed before the pass that made this assignment counted).
/// - **Never twice**: each session's own events (`kind` `event` messages, in
///   seq order, as its visitor receives them) hold at most one operator at a
///   time; an `assigned` while one holds it, or one naming a previous holder
///   (a transfer: the scenario makes none), is a double assignment.
/// - **First come, first served**: session A whose first message was acked
///   (stored, so queued) before B's first message was even sent must not be
///   assigned by a later pass than B. Which pass assigned what is not in the
///   frames: passes of one workspace hold one advisory lock in turn, and the
///   harness reads their order from PostgreSQL after the run (`passOrder`).
///   Live, the checker keeps each pair (A, B) where B was seen assigned while
///   A was not yet; `finish` judges them.
/// - **Every session assigned**: at the end, every session whose first message
///   was acked was seen assigned (the scenario ends with every operator online).
/// - **Nothing lost**: every session seen closed showed its visitor an
///   `assigned` and a `closed` event; a session requeued while its operator
///   stayed connected is reported too (nothing in the scenario lets one lapse).
public struct RoutingInvariants: Sendable {
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        public enum Kind: String, Sendable {
            case overCapacity, assignedTwice, outOfOrder, neverAssigned, requeued, lost
        }
        public var kind: Kind
        public var detail: String
        public var description: String { "\(kind.rawValue): \(detail)" }
    }

    /// A session as a `session`/`session.updated` frame showed it.
    public struct Snapshot: Sendable, Equatable {
        public var session: String
        public var version: Int64
        public var closed: Bool
        /// `assigned_operator.id`, nil when nobody holds it.
        public var operatorID: String?

        public init(session: String, version: Int64, closed: Bool, operatorID: String?) {
            self.session = session
            self.version = version
            self.closed = closed
            self.operatorID = operatorID
        }
    }

    /// An event message of a session, in that session's seq order.
    public enum Stored: Sendable, Equatable {
        case assigned(operatorID: String, previous: String?)
        case released(action: String)
        case closed
    }

    private struct Session {
        var version: Int64 = 0
        var closed = false
        var operatorID: String?
        var sentAt: UInt64?
        var ackedAt: UInt64?
        var firstAssignedAt: UInt64?
        var closing = false
        /// From its own events: who holds it now, and what it showed.
        var holder: String?
        var sawAssigned = false
        var sawClosed = false
    }

    private var sessions: [String: Session] = [:]
    private var capacities: [String: Int] = [:]
    /// Sessions assigned to each operator, not closed (from the snapshots).
    private var held: [String: Set<String>] = [:]
    /// Acked and not yet seen assigned, in ack order.
    private var waiting: [(session: String, ackedAt: UInt64)] = []
    /// (older, newer): `newer` was seen assigned while `older` waited.
    public private(set) var overtakes: [(older: String, newer: String)] = []
    public private(set) var violations: [Violation] = []
    /// First message sent to first seen assigned, per session, in nanoseconds.
    public private(set) var assignmentDelays: [UInt64] = []
    public private(set) var assignments = 0
    /// When the latest first assignment was seen.
    public private(set) var lastAssignmentAt: UInt64 = 0
    public private(set) var closes = 0
    /// Overtakes kept for `finish`; beyond it they are counted only.
    public static let overtakeLimit = 100_000
    public private(set) var overtakesDropped = 0

    public init() {}

    public var violationCount: Int { violations.count }

    /// Sessions acked and not seen assigned yet: the queue as the harness sees it.
    public var waitingCount: Int { waiting.count }

    public mutating func capacity(of operatorID: String, is capacity: Int) {
        capacities[operatorID] = capacity
    }

    public mutating func firstMessageSent(_ session: String, at instant: UInt64) {
        sessions[session, default: Session()].sentAt = instant
    }

    public mutating func firstMessageAcked(_ session: String, at instant: UInt64) {
        guard sessions[session]?.ackedAt == nil else { return }
        sessions[session, default: Session()].ackedAt = instant
        if sessions[session]?.firstAssignedAt == nil { waiting.append((session, instant)) }
    }

    public mutating func closeRequested(_ session: String) {
        sessions[session, default: Session()].closing = true
    }

    /// The reply to a `session.close` (after its snapshot, when it had one), or its error.
    public mutating func closeAnswered(_ session: String) {
        sessions[session]?.closing = false
    }

    /// A snapshot from any connection; one no newer than what was seen is old news.
    public mutating func snapshot(_ snapshot: Snapshot, at instant: UInt64) {
        var session = sessions[snapshot.session] ?? Session()
        guard snapshot.version > session.version else { return }
        let before = session.closed ? nil : session.operatorID
        session.version = snapshot.version
        session.operatorID = snapshot.operatorID
        let holder = snapshot.closed ? nil : snapshot.operatorID
        if let before, before != holder { held[before]?.remove(snapshot.session) }
        if snapshot.closed && !session.closed { closes += 1 }
        let newlyAssigned = session.firstAssignedAt == nil && snapshot.operatorID != nil
        if newlyAssigned {
            session.firstAssignedAt = instant
            lastAssignmentAt = max(lastAssignmentAt, instant)
            assignments += 1
            if let sent = session.sentAt { assignmentDelays.append(instant &- sent) }
        }
        session.closed = snapshot.closed
        sessions[snapshot.session] = session
        if let holder, holder != before {
            held[holder, default: []].insert(snapshot.session)
            checkCapacity(of: holder, assigning: snapshot.session)
        }
        if newlyAssigned { assigned(snapshot.session, sentAt: session.sentAt) }
    }

    private mutating func checkCapacity(of operatorID: String, assigning session: String) {
        guard let capacity = capacities[operatorID], let sessionsHeld = held[operatorID] else { return }
        let load = sessionsHeld.reduce(0) { $0 + (sessions[$1]?.closing == true ? 0 : 1) }
        guard load > capacity else { return }
        violations.append(
            Violation(
                kind: .overCapacity,
                detail: "\(operatorID) holds \(load) open sessions (capacity \(capacity)) once given \(session)"))
    }

    /// `session` was seen assigned for the first time: every session acked
    /// before it was sent and not seen assigned yet is a pair for `finish`.
    private mutating func assigned(_ session: String, sentAt: UInt64?) {
        waiting.removeAll { $0.session == session }
        guard let sentAt else { return }
        for older in waiting where older.ackedAt < sentAt {
            if overtakes.count < Self.overtakeLimit {
                overtakes.append((older.session, session))
            } else {
                overtakesDropped += 1
            }
        }
    }

    /// One of the session's own event messages, in seq order.
    public mutating func stored(_ event: Stored, in session: String) {
        var state = sessions[session] ?? Session()
        switch event {
        case .assigned(let operatorID, let previous):
            state.sawAssigned = true
            if let holder = state.holder {
                violations.append(
                    Violation(
                        kind: .assignedTwice, detail: "\(session) given to \(operatorID) while \(holder) held it"))
            } else if let previous {
                violations.append(
                    Violation(
                        kind: .assignedTwice,
                        detail: "\(session) moved from \(previous) to \(operatorID), though nobody transferred it"))
            }
            state.holder = operatorID
        case .released(let action):
            violations.append(
                Violation(
                    kind: .requeued,
                    detail:
                        "\(session) was \(action) from \(state.holder ?? "nobody") while its operator stayed connected"
                ))
            state.holder = nil
        case .closed:
            state.sawClosed = true
            state.holder = nil
        }
        sessions[session] = state
    }

    /// The end of the run. `passOrder`: for each session, the rank of the pass
    /// that first assigned it (from the database); nil when it was not read,
    /// and the overtakes then stay unjudged (`unjudgedOvertakes`).
    public mutating func finish(passOrder: [String: Int64]?) {
        for (id, session) in sessions.sorted(by: { $0.key < $1.key }) {
            if session.ackedAt != nil && session.firstAssignedAt == nil {
                violations.append(
                    Violation(kind: .neverAssigned, detail: "\(id) waited from its first message to the end"))
            }
            if session.closed && !(session.sawAssigned && session.sawClosed) {
                violations.append(
                    Violation(
                        kind: .lost,
                        detail:
                            "\(id) closed, but its visitor saw \(session.sawAssigned ? "no closed" : "no assigned") event"
                    ))
            }
        }
        guard let passOrder else { return }
        for (older, newer) in overtakes {
            guard let newerPass = passOrder[newer] else { continue }
            guard let olderPass = passOrder[older] else {
                violations.append(
                    Violation(kind: .outOfOrder, detail: "\(newer) was assigned; \(older), queued before it, never was")
                )
                continue
            }
            if olderPass > newerPass {
                violations.append(
                    Violation(
                        kind: .outOfOrder,
                        detail: "\(older) was queued before \(newer) was sent, yet assigned by a later pass"))
            }
        }
        judged = true
    }

    private var judged = false

    /// Overtakes no pass order judged (no database read).
    public var unjudgedOvertakes: Int { judged ? overtakesDropped : overtakes.count + overtakesDropped }
}
