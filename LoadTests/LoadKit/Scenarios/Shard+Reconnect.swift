import SwitchboardSystem

/// The shard's side of reconnection after a close: the back-off clock (the
/// client loop has no timers; its tick checks the queue) and the counts the
/// report shows (`ReportBuilder.addReconnections`).
extension Shard {
    /// A participant lost its connection mid-run and set out to make it again.
    func connectionLost(_ reason: CloseReason, wasReady: Bool) {
        connectionsLost += 1
        switch reason {
        case .closeFrame(1001): lostToGoingAway += 1
        case .transport: lostWithoutCloseFrame += 1
        default: break
        }
        if wasReady { readyCount -= 1 }
        note("connection lost mid-run, reconnecting: \(reason)")
    }

    /// A participant that lost its connection is joined again.
    func participantBack() {
        reconnectionsAfterClose += 1
        readyCount += 1
        timeline.count(.connected, at: MonotonicClock.nanoseconds())
    }

    func scheduleReconnect(_ participant: Participant, at due: UInt64) {
        reconnectQueue.append((participant, due))
    }

    /// Starts every reconnect whose pause is over. A participant whose
    /// attempt fails at once is queued again, with a later due time.
    func startDueReconnects(_ now: UInt64) {
        var index = 0
        while index < reconnectQueue.count {
            guard reconnectQueue[index].due <= now else {
                index += 1
                continue
            }
            let participant = reconnectQueue.remove(at: index).participant
            participant.reconnect()
        }
    }
}
