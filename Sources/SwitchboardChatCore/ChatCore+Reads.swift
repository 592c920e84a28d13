import SwitchboardAuth
import SwitchboardChat
import SwitchboardReaders

/// `read`: positions stored a batch at a time (`PendingReads`), then told to
/// everyone joined to the session.
extension ChatCore {
    func recordRead(_ id: UInt64, _ sessionID: String, seq: Int64, ref: String?, as identity: Identity) {
        pendingReads.add(id, ref: ref, sessionID: sessionID, seq: seq, reader: identity.participant)
        storeReads()
    }

    /// Sends what waits, unless a statement is in flight (its answer sends the
    /// rest) or the last began less than `readIntervalMilliseconds` ago (a
    /// timer then sends it).
    private func storeReads() {
        let entries: [PendingReads.Entry]
        switch pendingReads.next(now: loop.now, interval: settings.readIntervalMilliseconds) {
        case .nothing: return
        case .wait(let milliseconds):
            loop.after(milliseconds: milliseconds) { [self] in
                pendingReads.fireTimer()
                storeReads()
            }
            return
        case .store(let taken): entries = taken
        }
        let positions = entries.map(\.position)
        let accepted = reader.read({ queries throws(QueryError) in
            try queries.recordReads(positions)
        }) { [self] result in
            pendingReads.finishStoring()
            readsStored(entries, result)
            storeReads()
        }
        if !accepted {
            pendingReads.finishStoring()
            for entry in entries { for (id, ref) in entry.askers { failOverloaded(id, ref) } }
        }
    }

    private func readsStored(_ entries: [PendingReads.Entry], _ result: Result<[Int64?], QueryError>) {
        switch result {
        case .failure(let error):
            for entry in entries { for (id, ref) in entry.askers { fail(id, queryFailed(error, ref: ref)) } }
        case .success(let stored):
            for (entry, seq) in zip(entries, stored) {
                let sessionID = entry.sessionID
                guard let seq else {
                    for (id, ref) in entry.askers {
                        fail(id, ChatError(.notFound, "no session \(sessionID)", ref: ref))
                    }
                    continue
                }
                let frame = SharedFrame(payload: encoder.read(sessionID: sessionID, reader: entry.reader, seq: seq))
                broadcast(.session(SessionFrame(sessionID: sessionID, seq: nil, excludedConnection: nil, frame: frame)))
            }
        }
    }
}
