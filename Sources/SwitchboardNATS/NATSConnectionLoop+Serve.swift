import SwitchboardSystem

/// One connection, from the TCP connect to its loss: a poll loop over the
/// socket and the mailbox's eventfd. Each turn takes what other threads
/// queued, writes (our frames, then every queued publication in one call),
/// checks the handshake deadline or the keep-alive, then sleeps in poll.
extension NATSConnectionLoop {
    /// Returns whether the handshake completed (the backoff starts over).
    func serve() -> Bool {
        let link: NATSLink
        do {
            link = try NATSLink(connectingTo: address)
        } catch {
            return false
        }
        phase = .connecting
        parser = NATSParser()
        control.removeAll(keepingCapacity: true)
        controlWritten = 0
        subjects.removeAll()
        defer {
            outbox.rewind()
            if phase == .connected { report(.disconnected) }
        }
        let handshakeDeadline = Self.now() + timings.handshakeTimeout
        var stopDeadline: UInt64?
        var finalPingSent = false
        var fds = PollSet([mailbox.wakeup.fd, link.fd])
        do throws(NATSError) {
            while true {
                mailbox.drainWakeups()
                let stopping = phase == .connected ? takeQueued() : mailbox.isStopped
                // Before the handshake is over there is nothing of ours to deliver.
                if stopping && phase != .connected { return false }
                let wantsWrite = phase == .connecting ? true : try flush(link)
                let now = Self.now()

                var timeout: UInt64
                if stopping {
                    // Stop: write what is queued, then a PING; its PONG means the
                    // server has processed every publication before it.
                    let deadline = stopDeadline ?? now + timings.stopGrace
                    stopDeadline = deadline
                    if !finalPingSent && outbox.isEmpty && !wantsWrite {
                        NATSEncoding.appendPing(to: &control)
                        keepAlive.pinged(at: now)
                        finalPingSent = true
                        continue
                    }
                    if (finalPingSent && keepAlive.outstanding == 0) || now >= deadline { return true }
                    timeout = deadline - now
                } else if phase != .connected {
                    guard now < handshakeDeadline else {
                        throw NATSError(kind: .connection, message: "the server did not complete the handshake in time")
                    }
                    timeout = handshakeDeadline - now
                } else {
                    switch keepAlive.action(at: now) {
                    case .wait(let until):
                        timeout = until - now
                    case .ping:
                        NATSEncoding.appendPing(to: &control)
                        keepAlive.pinged(at: now)
                        continue
                    case .dead:
                        throw NATSError(kind: .connection, message: "the server stopped answering PINGs")
                    }
                }

                fds.watch(1, for: wantsWrite ? [.readable, .writable] : .readable)
                guard try wait(&fds, timeoutMilliseconds: timeout) else { continue }
                let ready = fds.ready(1)
                if phase == .connecting {
                    guard !ready.isEmpty else { continue }
                    try link.finishConnect()
                    phase = .awaitingInfo
                    keepAlive = KeepAlive(
                        interval: timings.pingInterval, maxOutstanding: timings.maxOutstandingPings, now: Self.now())
                } else if !ready.isDisjoint(with: [.readable, .failed]) {
                    try receive(from: link)
                }
            }
        } catch {
            return phase == .connected
        }
    }

    /// Takes what other threads queued (connected only): subscription changes
    /// become frames of ours, publications join the outbox. Returns whether
    /// the client is stopping.
    private func takeQueued() -> Bool {
        let stopping = mailbox.take(publications: &spare, changes: &changes)
        for change in changes {
            switch change {
            case .subscribe(let subject, let sid):
                NATSEncoding.appendSubscribe(subject, sid: sid, to: &control)
                subjects[sid] = subject
            case .unsubscribe(let sid):
                NATSEncoding.appendUnsubscribe(sid: sid, to: &control)
                subjects[sid] = nil
            }
        }
        changes.removeAll(keepingCapacity: true)
        if !spare.isEmpty { outbox.moveAll(from: &spare) }
        return stopping
    }

    /// Writes our frames, then (once connected) every queued publication in
    /// one call. Returns whether bytes are left for when the socket drains.
    private func flush(_ link: NATSLink) throws(NATSError) -> Bool {
        if controlWritten < control.count {
            controlWritten += try link.send(control[controlWritten...])
            if controlWritten < control.count { return true }
            control.removeAll(keepingCapacity: true)
            controlWritten = 0
        }
        guard phase == .connected && !outbox.isEmpty else { return false }
        let written = try link.send(outbox.unsent)
        let done = outbox.didWrite(written)
        if done.frames > 0 { mailbox.didSend(frames: done.frames, bytes: done.bytes) }
        return !outbox.isEmpty
    }

    private func receive(from link: NATSLink) throws(NATSError) {
        let count = try link.read(into: &readBuffer)
        guard count > 0 else { return }
        keepAlive.heard(at: Self.now())
        parser.feed(readBuffer[0..<count])
        while let event = try parser.next() { try handle(event) }
    }

    private func handle(_ event: NATSEvent) throws(NATSError) {
        if phase == .awaitingInfo {
            guard case .info = event else {
                throw NATSError(kind: .protocolViolation, message: "the server did not start with INFO")
            }
        }
        switch event {
        case .info(let json):
            // Later INFOs (the server's settings changed) only update the limit.
            if let maxPayload = NATSServerInfo.maxPayload(in: json) { mailbox.setMaxPayload(maxPayload) }
            if phase == .awaitingInfo { sendHandshake() }
        case .ping:
            NATSEncoding.appendPong(to: &control)
        case .pong:
            keepAlive.ponged()
            if phase == .awaitingPong && keepAlive.outstanding == 0 { becomeConnected() }
        case .ok:
            break
        case .err(let text):
            // After the handshake the server closes the connection itself when
            // the error is fatal; others (a denied subscription) leave it usable.
            if phase != .connected { throw NATSError(kind: .server, message: "the server refused: \(text)") }
        case .msg(let subject, let sid, let payload):
            guard subjects[sid] != nil else { return }
            mailbox.messagesIn.add(1, ordering: .relaxed)
            onMessage(subject, payload)
        }
    }

    /// CONNECT, every subscription, then a PING whose PONG confirms them all
    /// (with verbose off the server acknowledges nothing, but answers in order).
    private func sendHandshake() {
        NATSEncoding.appendConnect(name: name, echo: echo, to: &control)
        for subscription in mailbox.subscriptionsForNewConnection() {
            NATSEncoding.appendSubscribe(subscription.subject, sid: subscription.sid, to: &control)
            subjects[subscription.sid] = subscription.subject
        }
        NATSEncoding.appendPing(to: &control)
        keepAlive.pinged(at: Self.now())
        phase = .awaitingPong
    }

    private func becomeConnected() {
        phase = .connected
        if connections > 0 { mailbox.reconnects.add(1, ordering: .relaxed) }
        connections += 1
        // Before the next take: from now on publishers wake this thread.
        report(.connected)
    }

    /// poll() with a timeout in milliseconds; false when it timed out.
    private func wait(_ fds: inout PollSet, timeoutMilliseconds: UInt64) throws(NATSError) -> Bool {
        do {
            return try fds.wait(timeoutMilliseconds: Int32(min(timeoutMilliseconds, 60_000))) > 0
        } catch {
            throw NATSError(kind: .connection, message: error.description)
        }
    }
}
