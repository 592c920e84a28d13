import SwitchboardChat
import SwitchboardCluster
import SwitchboardReaders

/// Reading from the database what the live stream lacks: a gap in a
/// session's seq (another node's message whose notification was lost, or
/// that overtook this node's own), a batch too large for its notification,
/// and everything after the bus was lost. The database is the truth; the
/// bus only makes it arrive sooner.
extension ChatCore {
    /// Reads the messages after the oldest gap of `sessionID`'s subscriptions
    /// here, unless such a read is already on its way.
    func requestRepair(_ sessionID: String) {
        guard !repairing.contains(sessionID), let subscriptions = sessions[sessionID] else { return }
        guard let after = subscriptions.lazy.filter(\.isRepairing).compactMap(\.lastSeq).min() else { return }
        read([CatchUpRequest(sessionID: sessionID, after: after, announce: false)], then: nil)
    }

    /// Committed ranges another node could not carry in its notification.
    package func hint(_ ranges: [CommittedRange]) {
        var requests: [CatchUpRequest] = []
        for range in ranges where !repairing.contains(range.sessionID) {
            let after = sessions[range.sessionID]?.compactMap(\.lastSeq).min()
            let behind = after.map { $0 < range.lastSeq } ?? false
            let watched = range.workspaceID.map { inbox[$0] != nil } ?? false
            guard behind || watched else { continue }
            requests.append(CatchUpRequest(sessionID: range.sessionID, after: after, announce: watched))
        }
        read(requests, then: nil)
    }

    /// Another node changed a session whose state it could not carry.
    package func refresh(_ sessionID: String, workspaceID: String) {
        guard sessions[sessionID] != nil || inbox[workspaceID] != nil else { return }
        read([CatchUpRequest(sessionID: sessionID, after: nil, announce: true)], then: nil)
    }

    /// Every session joined here, from each one's oldest subscriber on
    /// (after the bus was lost, while it is, and now and then to find what a
    /// lost hint hid); with `inboxes`, the first page of each watched inbox
    /// too. `done` runs on this loop once every read has answered (failed
    /// reads included).
    package func catchUpAll(inboxes: Bool = true, then done: @escaping @Sendable () -> Void) {
        var requests: [CatchUpRequest] = []
        for (sessionID, subscriptions) in sessions where !repairing.contains(sessionID) {
            guard let after = subscriptions.compactMap(\.lastSeq).min() else { continue }
            requests.append(CatchUpRequest(sessionID: sessionID, after: after, announce: false))
        }
        if inboxes { for workspace in inbox.keys { refreshInbox(workspace) } }
        read(requests, then: done)
    }

    /// Finds messages whose notification was lost (a node that died between
    /// its commit and its notification): reads each joined session's
    /// last_seq, and catches up a session whose subscribers have not reached,
    /// by now, what the database held at the previous sweep. Cheap (one
    /// indexed lookup per session, one statement per 500), and it reads
    /// messages only for sessions actually behind, so a busy session whose
    /// newest messages are merely in flight costs nothing. `done` runs once
    /// every read has answered.
    package func sweep(then done: @escaping @Sendable () -> Void) {
        let joined = sessions.compactMap { id, subscriptions in
            subscriptions.compactMap(\.lastSeq).min().map { (id, $0) }
        }
        sweepMarks = sweepMarks.filter { sessions[$0.key] != nil }
        let chunkSize = 500
        let chunks = stride(from: 0, to: joined.count, by: chunkSize).map {
            Array(joined[$0..<min($0 + chunkSize, joined.count)])
        }
        guard !chunks.isEmpty else {
            done()
            return
        }
        let remaining = Countdown(chunks.count)
        for chunk in chunks {
            let ids = chunk.map(\.0)
            let finish: @Sendable (Result<[String: Int64], QueryError>) -> Void = { [self] result in
                if case .success(let seqs) = result {
                    var behind: [CatchUpRequest] = []
                    for (id, _) in chunk {
                        let had = sessions[id]?.compactMap(\.lastSeq).min()
                        if let had, let marked = sweepMarks[id], had < marked, !repairing.contains(id) {
                            behind.append(CatchUpRequest(sessionID: id, after: had, announce: false))
                        }
                        sweepMarks[id] = seqs[id]
                    }
                    read(behind, then: nil)
                }
                if remaining.tick() { done() }
            }
            let accepted = reader.read(
                { queries throws(QueryError) in try queries.lastSeqs(sessionIDs: ids) }, then: finish)
            if !accepted { finish(.failure(.unavailable("the readers are busy"))) }
        }
    }

    /// The inbox's first page, read again: consoles hear of every session on
    /// it that changed while the bus could not tell them.
    private func refreshInbox(_ workspace: String) {
        let pageSize = settings.inboxPageSize
        _ = reader.read({ queries throws(QueryError) in
            try queries.inbox(workspaceID: workspace, statuses: [.open, .assigned], limit: pageSize, cursor: nil)
        }) { [self] result in
            guard case .success(let page) = result else { return }
            for session in page.sessions where isNews(session) {
                let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))
                apply(.sessionChanged(session, frame: frame, excludedConnection: nil))
            }
        }
    }

    /// Reads `requests` in chunks, each one reader job; fills what they find.
    func read(_ requests: [CatchUpRequest], then done: (@Sendable () -> Void)?) {
        let chunkSize = 200
        let chunks = stride(from: 0, to: requests.count, by: chunkSize).map {
            Array(requests[$0..<min($0 + chunkSize, requests.count)])
        }
        guard !chunks.isEmpty else {
            done?()
            return
        }
        let remaining = Countdown(chunks.count)
        let limit = settings.replayLimit
        for chunk in chunks {
            for request in chunk where request.after != nil { repairing.insert(request.sessionID) }
            metrics.busCatchUpReads.increment(by: chunk.count)
            let finish: @Sendable (Result<[CatchUpAnswer], QueryError>) -> Void = { [self] result in
                for request in chunk { repairing.remove(request.sessionID) }
                switch result {
                case .success(let answers): for answer in answers { fill(answer) }
                case .failure(let error):
                    logger.warning("catching up \(chunk.count) sessions from the database failed: \(error)")
                }
                if remaining.tick() { done?() }
            }
            let accepted = reader.read(
                { queries throws(QueryError) in try queries.catchUp(chunk, limit: limit) }, then: finish)
            if !accepted { finish(.failure(.unavailable("the readers are busy"))) }
        }
    }

    /// What the database had for one session: to the subscriptions it was
    /// read for, then the session's state where it was asked for.
    private func fill(_ answer: CatchUpAnswer) {
        let sessionID = answer.request.sessionID
        var delivered = 0
        if let after = answer.request.after, let subscriptions = sessions[sessionID] {
            let frames = answer.messages.map { SessionFrame($0, frame: SharedFrame(payload: encoder.message($0))) }
            var gapsLeft = false
            for subscription in subscriptions {
                // Still replaying its join: the replay covers it.
                guard let lastSeq = subscription.lastSeq else { continue }
                subscription.peer.batchWrites {
                    for frame in frames { delivered += offer(frame, to: subscription) }
                    // Only a subscription the read started from (or behind) is complete through `through`.
                    if lastSeq >= after {
                        let released = subscription.settle(through: answer.through)
                        for frame in released { subscription.peer.send(frame.frame) }
                        delivered += released.count
                    }
                }
                if subscription.isRepairing { gapsLeft = true }
            }
            if gapsLeft { requestRepair(sessionID) }
        }
        if answer.request.announce, let session = answer.session {
            let frame = SharedFrame(payload: encoder.sessionUpdated(ref: nil, session))
            apply(.sessionChanged(session, frame: frame, excludedConnection: nil))
        }
        if delivered > 0 { metrics.fanoutDeliveries.increment(by: delivered) }
    }
}

/// Reader answers still awaited by one catch-up; only its core's loop touches it.
private final class Countdown: @unchecked Sendable {
    private var remaining: Int

    init(_ count: Int) { remaining = count }

    /// Counts one answer; true for the last.
    func tick() -> Bool {
        remaining -= 1
        return remaining == 0
    }
}
