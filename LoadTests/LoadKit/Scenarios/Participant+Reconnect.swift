import SwitchboardSystem

/// A participant whose connection went away mid-run, as a widget would:
/// back to the same URL after a pause (`ReconnectPolicy`), `hello`, `join`
/// with `since_seq` = the last seq received, then every send not answered
/// yet, with its own `client_msg_id`, which the gateway de-duplicates (an
/// ack lost with the connection comes back as `duplicate: true`).
extension Participant {
    /// Only once the traffic has started, for a participant that was set up
    /// once: a close during set-up or after the run is what it always was.
    func mayReconnect(after reason: CloseReason) -> Bool {
        shard.reconnectsAllowed && wasReady && ReconnectPolicy.retries(after: reason)
    }

    /// The connection (or an attempt to make it again) ended for `reason`.
    func connectionLost(_ reason: CloseReason, previousStage: Stage) {
        if !awaitingReconnect {
            awaitingReconnect = true
            reconnectAttempt = 0
            shard.connectionLost(reason, wasReady: previousStage == .ready)
        }
        guard reconnectAttempt < ReconnectPolicy.maxAttempts else {
            awaitingReconnect = false
            stage = .failed
            shard.failedDuringTraffic(
                "a participant gave up reconnecting after \(ReconnectPolicy.maxAttempts) attempts (the last: \(reason))"
            )
            return
        }
        reconnectAttempt += 1
        shard.scheduleReconnect(
            self, at: MonotonicClock.nanoseconds() + ReconnectPolicy.delay(beforeAttempt: reconnectAttempt))
    }

    /// A rejoin answered `overloaded` or `unavailable`: drop this attempt's
    /// connection and make another after the policy's pause (one attempt spent).
    func retryRejoin(after code: String) {
        let refused = client
        client = nil
        stage = .disconnected
        refused?.abort()  // reports .local to `closed`, which ignores a connection already let go
        shard.note("a rejoin was answered \(code); joining again after a pause")
        connectionLost(.transport("rejoin answered \(code)"), previousStage: .settingUp)
    }

    /// The shard's clock says the pause is over: connect again.
    func reconnect() {
        // Closed by the run meanwhile, or connected again another way (storm's own rejoin).
        guard awaitingReconnect, client == nil else { return }
        let client = WebSocketClient(delegate: self)
        self.client = client
        stage = .connecting
        connectStartedAt = MonotonicClock.nanoseconds()
        do {
            try shard.loop.connect(client, to: shard.nodes[node])
        } catch {
            // Refused at once (a loopback port nobody listens on): one attempt spent.
            self.client = nil
            stage = .disconnected
            connectionLost(.transport("connect: \(error)"), previousStage: .connecting)
        }
    }

    /// Joined again: everything not answered goes out, oldest first. Sends
    /// written before are retries (the gateway stored them or not; either
    /// way one ack comes back); the rest waited in the outbox.
    func sendOutstanding() {
        guard let client else { return }
        var retried = 0
        outstanding.forEach { counter, scheduled in
            if counter <= writtenThrough { retried += 1 }
            writeSend(counter: counter, scheduled: scheduled, on: client)
        }
        retriedThrough = writtenThrough
        writtenThrough = sendCounter
        shard.resentAfterReconnect += retried
    }
}
