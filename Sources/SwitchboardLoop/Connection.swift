import SwitchboardIO
import SwitchboardSystem

/// One accepted socket, owned for life by one loop.
///
/// Reads go into the loop's shared buffer and straight to the handler, so an
/// idle connection holds no read memory. Writes go straight to the socket;
/// only what the kernel does not take is queued, up to `maxOutboundBytes`.
/// Not thread-safe: every method runs on the owning loop's thread.
public final class Connection: EventSource, ConnectionIO {
    enum State { case open, draining, lingering, closed }

    public let fd: Int32
    public unowned let loop: EventLoop
    public var handler: (any ConnectionHandler<Connection>)?
    /// Told once when the connection closes, whichever handler it has by then
    /// (the per-address count, which outlives the HTTP handler an upgrade replaces).
    public var closeObserver: (any ConnectionCloseObserver)?
    /// Sees the first bytes before the cipher and the handler do (a PROXY
    /// protocol header, which comes before a TLS handshake too) until it says
    /// it is done; set it before the first read.
    public var preambleReader: (any ConnectionPreambleReader<Connection>)?
    /// A preamble that arrived in pieces (`preambleReader` bounds it).
    private var preamble = PreambleStage()
    public var maxOutboundBytes: Int
    let cipher: StreamCipher?
    var state = State.open

    private var outbound: [UInt8] = []
    private var outboundStart = 0
    /// `outbound` holds writes made while the loop holds writes (not a full socket).
    private var isHeld = false
    /// A write was queued for a full socket: the handler hears when it drains.
    private var drainWanted = false

    /// Input is not read (`pauseReading`): the kernel keeps it.
    public private(set) var isReadingPaused = false
    /// Decrypted input was left in the cipher when reading paused.
    private var plaintextWaiting = false
    /// The next read goes on until the socket is empty: the edge that told of
    /// the data (or of the peer's FIN) came while reading was paused and will
    /// not come again.
    private var readUntilDrained = false

    // Timer wheel bookkeeping (see TimerWheel).
    var timerTick: UInt64 = 0
    var timerSlot: Int32 = -1
    var timerIndex: Int32 = 0

    /// How long a closing connection waits for its output to drain and for
    /// the peer's FIN before the socket is closed regardless.
    static let closeTimeoutMilliseconds: UInt64 = 3000
    private static let readBudget = 16
    private static let corkLimit = 256 * 1024
    /// Past this, held writes go out at once: holding is for coalescing, not buffering.
    private static let holdLimit = 64 * 1024
    private static let heldCapacity = 4096

    init(fd: Int32, loop: EventLoop, cipher: StreamCipher?, maxOutboundBytes: Int) {
        self.fd = fd
        self.loop = loop
        self.cipher = cipher
        self.maxOutboundBytes = maxOutboundBytes
    }

    /// Wraps an accepted socket and registers it with `loop`; `priority`: in
    /// the loop's priority set until `leavePriority` (the gateway's HTTP).
    public static func open(
        fd: Int32, loop: EventLoop, cipher: StreamCipher?, maxOutboundBytes: Int,
        handler: any ConnectionHandler<Connection>, priority: Bool = false
    ) throws(SystemError) -> Connection {
        Socket.setNoDelay(fd)
        let connection = Connection(fd: fd, loop: loop, cipher: cipher, maxOutboundBytes: maxOutboundBytes)
        connection.handler = handler
        try loop.register(fd: fd, source: connection, events: Self.events, priority: priority)
        loop.connectionOpened()
        return connection
    }

    private static let events = Epoll.readable | Epoll.writable | Epoll.peerHangup | Epoll.edgeTriggered

    /// Leaves the loop's priority set: the connection now carries bulk
    /// traffic (a WebSocket), served in turn with the others.
    public func leavePriority() {
        guard state != .closed else { return }
        loop.leavePriority(fd: fd, events: Self.events)
    }

    public func limitKernelSendBuffer(toBytes bytes: Int) {
        guard state != .closed else { return }
        Socket.setSendBuffer(fd, bytes: bytes)
    }

    public var isOpen: Bool { state == .open }

    /// True while this connection's writes are being gathered into one send
    /// (it is handling its input, or the loop holds writes while it runs its
    /// tasks): consecutive writes cost one system call.
    public var isCorked: Bool { (loop.corkOwner === self && pendingOutboundBytes == 0) || isHeld }
    public var pendingOutboundBytes: Int { outbound.count - outboundStart }

    // MARK: Timers

    public func setTimer(afterMilliseconds delay: UInt64) {
        guard state == .open else { return }
        loop.schedule(self, atMilliseconds: loop.now + delay)
    }

    public func cancelTimer() {
        guard state == .open else { return }
        loop.cancelTimer(self)
    }

    func timerFired() {
        switch state {
        case .open: handler?.timerFired(on: self)
        case .draining:
            // The peer did not take all that was queued within the grace. A reset
            // frees the socket's kernel buffers now (megabytes for a peer with a
            // small window) and tells the peer at once; a plain close would leave
            // the kernel delivering them only as fast as the peer reads.
            Socket.setResetOnClose(fd)
            closeNow()
        case .lingering: closeNow()
        case .closed: break
        }
    }

    // MARK: Events

    public func handleEvents(_ events: UInt32) {
        if events & Epoll.writable != 0, pendingOutboundBytes > 0 {
            flushOutbound()
            reportDrained()
        }
        let readEvents = Epoll.readable | Epoll.peerHangup | Epoll.hangup | Epoll.error
        guard events & readEvents != 0, state != .closed else { return }
        if isReadingPaused {
            readUntilDrained = true  // a FIN seen now is read after the data, on resuming
            return
        }
        readAvailable(untilEOF: events & (Epoll.peerHangup | Epoll.hangup | Epoll.error) != 0)
    }

    // MARK: Pausing input

    public func pauseReading() {
        isReadingPaused = true
    }

    public func resumeReading() {
        guard isReadingPaused else { return }
        isReadingPaused = false
        guard state != .closed else { return }
        // Edge-triggered: what arrived while paused raised its edge already, so
        // the socket is read later in this pass without waiting for another.
        readUntilDrained = true
        loop.readAgain.append(self)
    }

    private func readAvailable(untilEOF: Bool) {
        if plaintextWaiting, let cipher, state == .open {
            plaintextWaiting = false
            loop.corkOwner = self
            drainPlaintext(cipher)
            loop.corkOwner = nil
            flushCork()
        }
        var budget = Self.readBudget
        while state != .closed && !isReadingPaused {
            if budget == 0 {
                loop.readAgain.append(self)
                return
            }
            budget -= 1
            let result: IOResult<Int>
            do {
                result = try Posix.read(fd, into: loop.readBuffer)
            } catch {
                closeNow()  // ECONNRESET and friends: the peer is gone.
                return
            }
            switch result {
            case .wouldBlock:
                readUntilDrained = false
                return
            case .processed(0):
                readUntilDrained = false
                peerEOF()
                return
            case .processed(let count):
                if state == .open { deliver(count) }
                // A short read drained the socket; more data raises a new edge.
                if count < loop.readBuffer.count && !untilEOF && !readUntilDrained { return }
            }
        }
    }

    private func deliver(_ count: Int) {
        loop.corkOwner = self
        defer {
            loop.corkOwner = nil
            flushCork()
        }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: loop.readBuffer[0..<count])
        if preambleReader == nil {
            deliverInput(bytes)
        } else {
            preamble.offer(bytes, on: self) { deliverInput($0) }
        }
    }

    /// Plaintext to the handler, or ciphertext through the cipher to it.
    private func deliverInput(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let cipher else {
            handler?.received(bytes, on: self)
            return
        }
        cipher.receiveCiphertext(UnsafeRawBufferPointer(bytes))
        drainPlaintext(cipher)
    }

    /// Hands the cipher's plaintext to the handler until it needs more
    /// ciphertext, or reading pauses (the rest waits in the cipher).
    private func drainPlaintext(_ cipher: StreamCipher) {
        while state == .open {
            if isReadingPaused {
                plaintextWaiting = true
                return
            }
            let read: CipherRead
            do {
                read = try cipher.readPlaintext(into: loop.plaintextBuffer)
            } catch {
                sendCiphertext()  // the alert, if any
                closeNow()
                return
            }
            switch read {
            case .bytes(let n):
                handler?.received(UnsafeMutableRawBufferPointer(rebasing: loop.plaintextBuffer[0..<n]), on: self)
            case .wantMoreCiphertext:
                sendCiphertext()
                return
            case .closed:
                sendCiphertext()
                peerEOF()
                return
            }
        }
    }

    private func peerEOF() {
        switch state {
        case .open:
            if let handler { handler.peerClosed(on: self) } else { closeNow() }
        case .draining:
            break  // still flushing our output; the close timer bounds the wait
        case .lingering, .closed:
            closeNow()
        }
    }

    // MARK: Writing

    @discardableResult
    public func write(_ bytes: [UInt8]) -> WriteOutcome {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Sends `bytes` in order after everything written before.
    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        guard state == .open else { return .dropped }
        if loop.corkOwner === self && pendingOutboundBytes == 0 {
            if loop.cork.count + bytes.count > Self.corkLimit { flushCork() }
            if bytes.count <= Self.corkLimit {
                loop.cork.append(contentsOf: bytes)
                return .sent
            }
        }
        return send(bytes)
    }

    /// Gathers the writes `body` makes into the loop's cork and sends them with
    /// one system call (fan-out of a batch, a join's replay). Inside another
    /// connection's input handling the cork is taken, so the writes go out as usual.
    /// A backlog past the cap is reported to the handler (`backlogExceeded`), as for any write.
    public func batchWrites(_ body: () -> Void) {
        // While the loop holds writes they are gathered per connection already;
        // corking as well would copy every byte twice.
        guard loop.corkOwner == nil, !loop.holdsWrites, state == .open else {
            body()
            return
        }
        loop.corkOwner = self
        body()
        loop.corkOwner = nil
        flushCork()
    }

    private func flushCork() {
        guard !loop.cork.isEmpty else { return }
        // Take the cork out of the loop so a re-entrant write cannot touch it mid-send.
        var pending: [UInt8] = []
        swap(&pending, &loop.cork)
        if state == .open || state == .draining {
            _ = pending.withUnsafeBytes { send($0) }
        }
        pending.removeAll(keepingCapacity: true)
        swap(&pending, &loop.cork)
    }

    private func send(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        guard let cipher else { return sendRaw(bytes) }
        do {
            try cipher.writePlaintext(bytes)
        } catch {
            closeNow()
            return .dropped
        }
        return sendCiphertext()
    }

    @discardableResult
    private func sendCiphertext() -> WriteOutcome {
        var outcome = WriteOutcome.sent
        cipher?.drainCiphertext { chunk in
            let result = sendRaw(chunk)
            if result != .sent { outcome = result }
        }
        return outcome
    }

    private func sendRaw(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        guard state != .closed, state != .lingering else { return .dropped }
        // A connection in the loop's priority set (plain HTTP) is never held: its answer goes out now.
        if loop.holdsWrites && !loop.isInPrioritySet(fd) && (isHeld || pendingOutboundBytes == 0) {
            if pendingOutboundBytes + bytes.count <= Self.holdLimit {
                if !isHeld {
                    isHeld = true
                    loop.heldConnections.append(self)
                    // One allocation for a pass's writes, not one per doubling.
                    outbound.reserveCapacity(Self.heldCapacity)
                }
                outbound.append(contentsOf: bytes)
                return .sent
            }
            if isHeld {
                isHeld = false
                flushOutbound()
                guard state != .closed, state != .lingering else { return .dropped }
            }
        }
        var written = 0
        if pendingOutboundBytes == 0 {
            do {
                switch try Posix.write(fd, bytes) {
                case .processed(let n): written = n
                case .wouldBlock: written = 0
                }
            } catch {
                closeNow()
                return .dropped
            }
            if written == bytes.count { return .sent }
        }
        if outboundStart == outbound.count {
            outbound.removeAll(keepingCapacity: true)
            outboundStart = 0
        }
        let wasWithinLimit = pendingOutboundBytes <= maxOutboundBytes
        outbound.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[written...]))
        drainWanted = true
        guard pendingOutboundBytes > maxOutboundBytes else { return .queued }
        // One place for every path (corked flushes included) to learn of a slow peer.
        if wasWithinLimit { handler?.backlogExceeded(on: self) }
        return .overLimit
    }

    /// Sends what was held while the loop ran its tasks.
    func releaseHeldWrites() {
        guard isHeld else { return }
        isHeld = false
        flushOutbound()
        reportDrained()
    }

    /// Tells the handler that queued writes are out, outside any write of its own.
    private func reportDrained() {
        guard drainWanted, pendingOutboundBytes == 0, state == .open else { return }
        drainWanted = false
        handler?.outboundDrained(on: self)
    }

    private func flushOutbound() {
        while pendingOutboundBytes > 0 {
            let result: IOResult<Int>
            do {
                result = try outbound.withUnsafeBytes { all throws(SystemError) in
                    try Posix.write(fd, UnsafeRawBufferPointer(rebasing: all[outboundStart...]))
                }
            } catch {
                closeNow()
                return
            }
            guard case .processed(let n) = result else { return }
            outboundStart += n
        }
        // Drained: give the memory back; idle connections should cost nothing.
        outbound = []
        outboundStart = 0
        if state == .draining { beginLinger() }
    }

    // MARK: Closing

    /// Sends what is queued, then shuts down our side and waits (bounded) for
    /// the peer's FIN before closing, so the peer reads our last bytes instead
    /// of a reset caused by its unread data.
    public func closeAfterFlush() {
        guard state == .open else { return }
        // Input is dropped from now on, but still read, to see the peer's FIN.
        resumeReading()
        if loop.corkOwner === self { flushCork() }
        if let cipher {
            cipher.shutdown()
            sendCiphertext()
        }
        guard state == .open else { return }
        loop.cancelTimer(self)
        if pendingOutboundBytes > 0 {
            state = .draining
            loop.schedule(self, atMilliseconds: loop.now + Self.closeTimeoutMilliseconds)
        } else {
            beginLinger()
        }
    }

    private func beginLinger() {
        state = .lingering
        Posix.shutdownWrite(fd)
        loop.schedule(self, atMilliseconds: loop.now + Self.closeTimeoutMilliseconds)
    }

    /// Closes the socket at once, dropping anything unsent.
    public func closeNow() {
        guard state != .closed else { return }
        state = .closed
        loop.cancelTimer(self)
        if loop.corkOwner === self { loop.cork.removeAll(keepingCapacity: true) }
        loop.deregister(fd: fd)
        Posix.close(fd)
        loop.connectionClosed()
        outbound = []
        outboundStart = 0
        isHeld = false
        reportClosed(nowMilliseconds: loop.now)
    }
}
