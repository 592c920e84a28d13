import SwitchboardIO
import Synchronization

/// A connection without a socket, for tests: the test plays the peer. It
/// pushes bytes in with `receive` (the handler runs at once, on the test's
/// thread), half-closes with `peerClose`, and takes what was written with
/// `takeOutbound`. The peer reads everything at once, so no write is ever
/// queued: backpressure is the kernel's and stays with the socket tests.
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
        loop.wake()
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

    /// The peer shut down its side (EOF).
    public func peerClose() {
        guard isOpen else { return }
        if let handler { handler.peerClosed(on: self) } else { closeNow() }
    }

    /// What was written since the last call.
    public func takeOutbound() -> [UInt8] {
        defer { outbound.removeAll(keepingCapacity: true) }
        return outbound
    }

    public var hasOutbound: Bool { !outbound.isEmpty }

    // MARK: ConnectionIO

    @discardableResult
    public func write(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        guard isOpen else { return .dropped }
        outbound.append(contentsOf: bytes)
        return .sent
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
