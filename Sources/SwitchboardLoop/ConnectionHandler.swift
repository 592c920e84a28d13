/// The protocol layer above a connection (HTTP, then WebSocket after an
/// upgrade). Every call arrives on the connection's loop thread.
public protocol ConnectionHandler: AnyObject {
    /// Bytes from the peer. The buffer is the loop's shared buffer: valid only
    /// during the call, and the handler may modify it (WebSocket unmasks in place).
    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: Connection)
    /// The deadline set with `Connection.setTimer` has passed.
    func timerFired(on connection: Connection)
    /// The peer closed its side (EOF or TLS close_notify).
    func peerClosed(on connection: Connection)
    /// The connection is gone; release what refers to it.
    func closed(_ connection: Connection)
    /// Unsent bytes have just passed the connection's `maxOutboundBytes`, by
    /// whichever write (direct, corked or batched): the peer is not keeping up.
    /// Called once per crossing; the default does nothing.
    func backlogExceeded(on connection: Connection)
}

extension ConnectionHandler {
    public func backlogExceeded(on connection: Connection) {}
}

/// What became of a write.
public enum WriteOutcome: Equatable {
    /// Handed to the kernel, or gathered to be sent when the current input is handled.
    case sent
    /// Partly queued because the socket is full; within the connection's limit.
    case queued
    /// Queued, but the unsent bytes now exceed the connection's limit.
    case overLimit
    /// The connection is closed or closing; nothing was written.
    case dropped
}

/// Learns that a connection has closed (`Connection.closeObserver`).
public protocol ConnectionCloseObserver: AnyObject {
    func connectionClosed(_ connection: Connection)
}

/// Reads what comes before a connection's own protocol (`Connection.preambleReader`).
public protocol ConnectionPreambleReader: AnyObject {
    /// `bytes` are everything received so far. `.needMore` keeps them (the
    /// reader must not ask for more without bound); `.done(n)` passes on all
    /// but the first `n`. A reader that refuses the connection closes it and
    /// returns `.done(0)`.
    func readPreamble(_ bytes: UnsafeRawBufferPointer, on connection: Connection) -> PreambleOutcome
}

public enum PreambleOutcome: Equatable {
    case needMore
    case done(Int)
}
