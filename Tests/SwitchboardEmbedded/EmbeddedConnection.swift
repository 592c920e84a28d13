import SwitchboardIO
import Synchronization

/// A connection without a socket, for tests: the test plays the peer. It
/// pushes bytes in with `receive` (the handler runs at once, on the test's
/// thread), half-closes with `peerClose`, and takes what was written with
/// `takeOutbound`. By default the peer reads everything at once, so no write
/// is ever queued; with `socketBufferBytes` set, writes past that many unread
/// bytes are queued as a full socket's are, and the peer's `takeOutbound`
/// drains them (the handler hears `outboundDrained`).
///
/// While reading is paused, what the peer sends waits here as it would in the
/// kernel (`unreadInbound`) and is handed over on the loop's next
/// `runPending` after `resumeReading`, in reads of at most `readSize` bytes.
public final class EmbeddedConnection: ConnectionIO {
    public enum State: Equatable {
        case open
        /// Closed after a flush: our FIN is sent, the close completes on the loop's next pass.
        case closing
        /// Gone; `abruptly` when closed at once (`closeNow`), which drops anything unsent.
        case closed(abruptly: Bool)
    }

    public let loop: EmbeddedLoop
    public let fd: Int32
    public var handler: (any ConnectionHandler<EmbeddedConnection>)?
    public var closeObserver: (any ConnectionCloseObserver)?
    public var preambleReader: (any ConnectionPreambleReader<EmbeddedConnection>)?
    public var maxOutboundBytes: Int
    public private(set) var state = State.open
    public private(set) var isCorked = false
    /// The handler's deadline on the loop's clock (`setTimer`).
    public private(set) var deadline: UInt64?
    private var outbound: [UInt8] = []
    private var preamble = PreambleStage()

    /// The size of the socket's send buffer as the peer sees it: nil, unbounded.
    public var socketBufferBytes: Int?
    /// Writes queued behind a full socket buffer (`socketBufferBytes`).
    public private(set) var backlog: [UInt8] = []
    private var drainWanted = false
    /// The most bytes one read hands the handler (the loop's read buffer).
    public var readSize = 64 * 1024
    public private(set) var isReadingPaused = false
    /// What the peer sent that the handler has not been given yet (paused, or
    /// waiting for the loop's next pass after a resume): the kernel's receive buffer.
    public private(set) var unreadInbound: [UInt8] = []
    private var resumePending = false
    /// The peer's FIN, behind `unreadInbound`.
    private var finPending = false
    /// Every byte the handler has been given, for tests of what was read.
    public private(set) var deliveredBytes = 0
    /// Stands in for descriptors: each connection its own number (tests run in parallel).
    private static let serial = Atomic<Int32>(100)

    public init(loop: EmbeddedLoop, maxOutboundBytes: Int = 1 << 20) {
        self.loop = loop
        self.maxOutboundBytes = maxOutboundBytes
        fd = Self.serial.add(1, ordering: .relaxed).newValue
        loop.opened(self)
    }

    public var isOpen: Bool { state == .open }

    // MARK: The peer's side (the test)

    /// Bytes from the peer, as one read: through the preamble reader (if
    /// any) to the handler, whose writes meanwhile go out together.
    public func receive(_ bytes: [UInt8]) {
        guard isOpen, !bytes.isEmpty else { return }
        if isReadingPaused || resumePending || !unreadInbound.isEmpty {
            unreadInbound += bytes  // the kernel keeps it, behind what it kept already
            return
        }
        deliver(bytes)
    }

    private func deliver(_ bytes: [UInt8]) {
        loop.wake()
        deliveredBytes += bytes.count
        var input = bytes
        isCorked = true
        defer { isCorked = false }
        input.withUnsafeMutableBytes { buffer in
            if preambleReader == nil {
                handler?.received(buffer, on: self)
            } else {
                preamble.offer(buffer, on: self) { handler?.received($0, on: self) }
            }
        }
    }

    /// The peer shut down its side (EOF), after everything it sent: while input
    /// waits unread, the handler hears of it once that input is read.
    public func peerClose() {
        guard isOpen else { return }
        if isReadingPaused || resumePending || !unreadInbound.isEmpty {
            finPending = true
            return
        }
        if let handler { handler.peerClosed(on: self) } else { closeNow() }
    }

    /// What was written since the last call. With `socketBufferBytes`, what
    /// was queued moves into the freed buffer; once the queue is empty the
    /// handler hears `outboundDrained` (a full socket's next writable edge).
    public func takeOutbound() -> [UInt8] {
        defer {
            outbound.removeAll(keepingCapacity: true)
            if !backlog.isEmpty {
                let take = min(backlog.count, socketBufferBytes ?? backlog.count)
                outbound.append(contentsOf: backlog[..<take])
                backlog.removeFirst(take)
            }
            if drainWanted && backlog.isEmpty && isOpen {
                drainWanted = false
                handler?.outboundDrained(on: self)
            }
        }
        return outbound
    }

    public var hasOutbound: Bool { !outbound.isEmpty }

    // MARK: ConnectionIO

    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        guard isOpen else { return .dropped }
        guard let capacity = socketBufferBytes else {
            outbound.append(contentsOf: bytes)
            return .sent
        }
        let take = backlog.isEmpty ? min(bytes.count, max(0, capacity - outbound.count)) : 0
        outbound.append(contentsOf: bytes[..<take])
        guard take < bytes.count else { return .sent }
        let wasWithinLimit = backlog.count <= maxOutboundBytes
        backlog.append(contentsOf: bytes[take...])
        drainWanted = true
        guard backlog.count > maxOutboundBytes else { return .queued }
        if wasWithinLimit { handler?.backlogExceeded(on: self) }
        return .overLimit
    }

    @discardableResult
    public func write(_ bytes: [UInt8]) -> WriteOutcome {
        bytes.withUnsafeBytes { write($0) }
    }

    public func batchWrites(_ body: () -> Void) {
        guard !isCorked, isOpen else { return body() }
        isCorked = true
        body()
        isCorked = false
    }

    public func setTimer(afterMilliseconds delay: UInt64) {
        guard isOpen else { return }
        deadline = loop.now + delay
    }

    public func cancelTimer() { deadline = nil }

    public func pauseReading() { isReadingPaused = true }

    public func resumeReading() {
        guard isReadingPaused else { return }
        isReadingPaused = false
        guard isOpen, !resumePending else { return }
        resumePending = true
        loop.readLater(self)
    }

    public func closeAfterFlush() {
        guard isOpen else { return }
        state = .closing
        deadline = nil
        loop.closeLater(self)
    }

    public func closeNow() {
        switch state {
        case .open, .closing: finish(abruptly: true)
        case .closed: break
        }
    }

    // MARK: For the loop

    func fireTimer() {
        deadline = nil
        if isOpen { handler?.timerFired(on: self) }
    }

    /// Hands over what arrived while paused, a read at a time, until reading
    /// pauses again (the loop's retry of reads after a resume).
    func readWaitingInput() {
        resumePending = false
        while isOpen, !isReadingPaused, !unreadInbound.isEmpty {
            let take = min(readSize, unreadInbound.count)
            let read = Array(unreadInbound[..<take])
            unreadInbound.removeFirst(take)
            deliver(read)
        }
        if finPending, isOpen, !isReadingPaused, unreadInbound.isEmpty {
            finPending = false
            peerClose()
        }
    }

    func finishClose() {
        if state == .closing { finish(abruptly: false) }
    }

    private func finish(abruptly: Bool) {
        // A flush that was under way is complete; an abrupt close from open drops nothing here,
        // since the peer has read every write already.
        state = .closed(abruptly: abruptly && state == .open)
        deadline = nil
        loop.closed(self)
        reportClosed(nowMilliseconds: loop.now)
    }
}
