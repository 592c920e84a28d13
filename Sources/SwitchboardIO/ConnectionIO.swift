/// One connection as its protocol handlers see it: somewhere to write bytes,
/// a deadline, a way to close, and the loop that owns it. The gateway's
/// `Connection` (a socket on an epoll loop) in production; an in-memory
/// connection in tests, so HTTP, the upgrade and WebSocket run without a socket.
///
/// Handlers are generic over it (`HTTPConnectionHandler<IO>`), so the
/// gateway's build specializes them for `Connection`: the seam costs the hot
/// path no indirect call and no allocation. Every call happens on the loop's thread.
public protocol ConnectionIO: AnyObject {
    associatedtype Loop: ConnectionLoop

    /// The loop that owns this connection for life.
    var loop: Loop { get }
    /// A number fixed for the connection's life (the socket's descriptor),
    /// to spread per-connection work such as heartbeats.
    var fd: Int32 { get }
    /// The protocol layer that gets this connection's input; an upgrade replaces it.
    var handler: (any ConnectionHandler<Self>)? { get set }
    /// Told once when the connection closes, whichever handler it has by then
    /// (the per-address count, which outlives the HTTP handler an upgrade replaces).
    var closeObserver: (any ConnectionCloseObserver)? { get set }
    /// Sees the first bytes before the handler does (a PROXY protocol header)
    /// until it says it is done; set it before the first input.
    var preambleReader: (any ConnectionPreambleReader<Self>)? { get set }
    /// Unsent bytes past which the handler hears `backlogExceeded`.
    var maxOutboundBytes: Int { get set }

    /// Neither closing nor closed.
    var isOpen: Bool { get }
    /// Consecutive writes are being gathered into one send right now, so a
    /// frame may be written as header and payload without a buffer of its own.
    var isCorked: Bool { get }

    /// Sends `bytes` in order after everything written before.
    @discardableResult func write(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome
    @discardableResult func write(_ bytes: [UInt8]) -> WriteOutcome
    /// Gathers the writes `body` makes into as few sends as the loop allows.
    func batchWrites(_ body: () -> Void)

    /// Calls the handler's `timerFired` after `delay` (replacing any earlier deadline).
    func setTimer(afterMilliseconds delay: UInt64)
    func cancelTimer()

    /// Stops handing input to the handler until `resumeReading`: what the peer
    /// sends meanwhile waits in the kernel, whose full buffers then hold the
    /// peer back (an upload waiting for storage). Input already being handed
    /// over is the handler's to keep.
    func pauseReading()
    /// Hands input to the handler again, starting with what arrived while
    /// paused, later in the loop's pass (never from inside this call).
    func resumeReading()
    /// Between `pauseReading` and `resumeReading`.
    var isReadingPaused: Bool { get }

    /// The connection now carries bulk traffic (an upgrade to WebSocket):
    /// the loop serves it in turn with the others, no longer ahead of them.
    func leavePriority()
    /// Caps what the kernel holds unsent for this connection at about
    /// `bytes` (twice that with the kernel's bookkeeping), so that a peer
    /// that does not read fills `maxOutboundBytes` instead of megabytes of
    /// kernel buffer beside it.
    func limitKernelSendBuffer(toBytes bytes: Int)

    /// Sends what is queued, then closes (the peer reads our last bytes).
    func closeAfterFlush()
    /// Closes at once, dropping anything unsent.
    func closeNow()
}

/// What handlers need of the loop that owns their connection.
public protocol ConnectionLoop: AnyObject {
    /// The loop's number: which of the per-loop shared resources are its own.
    var index: Int { get }
    /// The loop's clock in milliseconds, refreshed once per pass.
    var now: UInt64 { get }
    /// When the current pass's input was seen (monotonic nanoseconds), for latency stages.
    var wokeAt: UInt64 { get }
}

extension ConnectionIO {
    /// Connections without a priority set (in-memory ones in tests) have nothing to leave.
    public func leavePriority() {}
    /// In-memory connections have no kernel buffer.
    public func limitKernelSendBuffer(toBytes bytes: Int) {}
}
