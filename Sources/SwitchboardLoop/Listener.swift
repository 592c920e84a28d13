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
            try loop.register(fd: fd, source: self, events: Epoll.readable | Epoll.edgeTriggered)
        } catch {
            Posix.close(fd)
            throw error
        }
    }

    public func handleEvents(_ events: UInt32) {
        acceptAll()
    }

    private func acceptAll() {
        guard !paused else { return }
        while true {
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
    }

    public func close() {
        loop.deregister(fd: fd)
        Posix.close(fd)
    }
}
