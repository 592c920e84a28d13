import SwitchboardSystem

/// A loop's own listening socket (SO_REUSEPORT: one per loop per address).
public final class Listener: EventSource {
    public let fd: Int32
    public let address: SocketAddress
    public let port: UInt16
    unowned let loop: EventLoop
    private let onAccept: (Int32, PeerAddress) -> Void
    private let onError: (SystemError) -> Void
    private var paused = false

    /// Pause after EMFILE/ENFILE: with edge-triggered epoll the pending
    /// connection would otherwise never be retried.
    private static let retryDelayMilliseconds: UInt64 = 100
    /// Connections taken per turn. A burst of connections (a flood refused at
    /// accept costs the loop some tens of microseconds each) is taken a turn
    /// at a time, with the pass's fan-out and reads between turns, instead of
    /// stalling them until the backlog is empty.
    static let acceptsPerTurn = 16
    private var continuationScheduled = false
    /// Set by `close`: a turn or retry still scheduled must not call accept on
    /// a descriptor number the process may have given to another socket since.
    private var closed = false

    public init(
        address: SocketAddress, backlog: Int32, loop: EventLoop,
        onAccept: @escaping (Int32, PeerAddress) -> Void, onError: @escaping (SystemError) -> Void
    ) throws(SystemError) {
        fd = try Socket.listen(on: address, reusePort: true, backlog: backlog)
        self.address = address
        port = Socket.localPort(fd) ?? address.port
        self.loop = loop
        self.onAccept = onAccept
        self.onError = onError
        do throws(SystemError) {
            try loop.register(fd: fd, source: self, events: Epoll.readable | Epoll.edgeTriggered, priority: true)
        } catch {
            Posix.close(fd)
            throw error
        }
    }

    public func handleEvents(_ events: UInt32) {
        acceptAll()
    }

    private func acceptAll() {
        guard !paused && !closed else { return }
        for _ in 0..<Self.acceptsPerTurn {
            do {
                switch try Socket.acceptWithPeer(fd) {
                case .wouldBlock: return
                case .processed(let client): onAccept(client.fd, client.peer)
                }
            } catch {
                onError(error)
                paused = true
                loop.after(milliseconds: Self.retryDelayMilliseconds) { [weak self] in
                    self?.paused = false
                    self?.acceptAll()
                }
                return
            }
        }
        // More may be waiting, and edge-triggered epoll will not say so again:
        // the next turn comes after the pass's fan-out and reads.
        guard !continuationScheduled else { return }
        continuationScheduled = true
        loop.runLaterInPass { [weak self] in
            self?.continuationScheduled = false
            self?.acceptAll()
        }
    }

    public func close() {
        closed = true
        loop.deregister(fd: fd)
        Posix.close(fd)
    }
}
