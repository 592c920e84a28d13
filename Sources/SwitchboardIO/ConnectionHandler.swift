/// The protocol layer above a connection (HTTP, then WebSocket after an
/// upgrade). Every call arrives on the connection's loop thread.
public protocol ConnectionHandler<IO>: AnyObject {
    associatedtype IO: ConnectionIO

    /// Bytes from the peer. The buffer is the loop's shared buffer: valid only
    /// during the call, and the handler may modify it (WebSocket unmasks in place).
    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: IO)
    /// The deadline set with `ConnectionIO.setTimer` has passed.
    func timerFired(on connection: IO)
    /// The peer closed its side (EOF or TLS close_notify).
    func peerClosed(on connection: IO)
    /// The connection is gone; release what refers to it.
    func closed(_ connection: IO)
    /// Unsent bytes have just passed the connection's `maxOutboundBytes`, by
    /// whichever write (direct, corked or batched): the peer is not keeping up.
    /// Called once per crossing; the default does nothing.
    func backlogExceeded(on connection: IO)
    /// Bytes that a write had to queue (it returned `.queued` or `.overLimit`)
    /// have all been handed to the kernel: a streamed response may write its
    /// next piece. Not called for writes that went out at once. The default
    /// does nothing.
    func outboundDrained(on connection: IO)
}

extension ConnectionHandler {
    public func backlogExceeded(on connection: IO) {}
    public func outboundDrained(on connection: IO) {}
}

/// What became of a write.
public enum WriteOutcome: Equatable, Sendable {
    /// Handed to the kernel, or gathered to be sent when the current input is handled.
    case sent
    /// Partly queued because the socket is full; within the connection's limit.
    case queued
    /// Queued, but the unsent bytes now exceed the connection's limit.
    case overLimit
    /// The connection is closed or closing; nothing was written.
    case dropped
}

/// Learns that a connection has closed (`ConnectionIO.closeObserver`), at
/// `now`, its loop's time.
public protocol ConnectionCloseObserver: AnyObject {
    func connectionClosed(nowMilliseconds now: UInt64)
}

/// Reads what comes before a connection's own protocol (`ConnectionIO.preambleReader`).
public protocol ConnectionPreambleReader<IO>: AnyObject {
    associatedtype IO: ConnectionIO

    /// `bytes` are everything received so far. `.needMore` keeps them (the
    /// reader must not ask for more without bound); `.done(n)` passes on all
    /// but the first `n`. A reader that refuses the connection closes it and
    /// returns `.done(0)`.
    func readPreamble(_ bytes: UnsafeRawBufferPointer, on connection: IO) -> PreambleOutcome
}

public enum PreambleOutcome: Equatable, Sendable {
    case needMore
    case done(Int)
}

extension ConnectionIO {
    /// The last step of every close, whatever carried the connection: its
    /// handler is told and let go, then its close observer, each once.
    @inlinable
    public func reportClosed(nowMilliseconds now: UInt64) {
        let handler = self.handler
        self.handler = nil
        handler?.closed(self)
        if let observer = closeObserver {
            closeObserver = nil
            observer.connectionClosed(nowMilliseconds: now)
        }
    }
}
