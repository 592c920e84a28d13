import CSystem
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// One thread's epoll instance driving many client connections: the harness
/// side of the gateway's event loop. Not thread-safe; everything runs on the
/// thread that calls `run`.
public final class ClientLoop {
    public let host: String
    public let port: UInt16
    public let path: String
    private let epfd: Int32
    private var clients: [WebSocketClient?] = []
    /// Shared receive buffer: a connection keeps bytes only when a frame is split.
    let readBuffer: UnsafeMutableRawBufferPointer
    /// Outgoing frames are assembled here, masked, then written.
    var frameScratch: [UInt8] = []

    public init(host: String = "127.0.0.1", port: UInt16, path: String) throws(SystemError) {
        self.host = host
        self.port = port
        self.path = path
        epfd = try Epoll.create()
        readBuffer = .allocate(byteCount: 256 * 1024, alignment: 16)
        frameScratch.reserveCapacity(16 * 1024)
    }

    deinit {
        for case let client? in clients { client.abort() }
        readBuffer.deallocate()
        Posix.close(epfd)
    }

    /// Starts connecting `client` to the loop's own host, port and path;
    /// `delegate.opened` follows the upgrade.
    public func connect(_ client: WebSocketClient) throws(SystemError) {
        try connect(client, to: GatewayEndpoint(host: host, port: port, path: path))
    }

    /// Starts connecting `client` to `endpoint`: one loop drives connections
    /// to every node of a cluster, as one thread of widgets would.
    /// `receiveBufferBytes` caps the socket's receive buffer (SO_RCVBUF).
    public func connect(
        _ client: WebSocketClient, to endpoint: GatewayEndpoint, receiveBufferBytes: Int32? = nil
    ) throws(SystemError) {
        let fd = try ClientSocket.startConnect(
            host: endpoint.host, port: endpoint.port, receiveBufferBytes: receiveBufferBytes)
        if Int(fd) >= clients.count {
            clients.append(contentsOf: repeatElement(nil, count: Int(fd) + 1024 - clients.count))
        }
        clients[Int(fd)] = client
        client.attach(fd: fd, loop: self, endpoint: endpoint)
        do throws(SystemError) {
            try Epoll.add(
                epfd, fd: fd,
                events: Epoll.readable | Epoll.writable | Epoll.peerHangup | Epoll.edgeTriggered,
                data: UInt64(UInt32(fd)))
        } catch {
            clients[Int(fd)] = nil
            Posix.close(fd)
            throw error
        }
    }

    func forget(fd: Int32) {
        if Int(fd) < clients.count { clients[Int(fd)] = nil }
    }

    /// Dispatches socket events and calls `tick` about once a millisecond
    /// (and after every batch of events) until `tick` returns false.
    public func run(tick: () -> Bool) {
        let events = EpollEvents(capacity: 1024)
        while true {
            // An error here (EBADF, EINVAL) would repeat forever: stop, as the gateway's loop does.
            let count: Int
            do {
                count = try Epoll.wait(epfd, into: events, timeoutMilliseconds: 1)
            } catch {
                fatalError("epoll_wait: \(error)")
            }
            for index in 0..<count {
                let event = events[index]
                let fd = Int32(truncatingIfNeeded: event.data)
                guard Int(fd) < clients.count, let client = clients[Int(fd)] else { continue }
                client.handleEvents(event.events)
            }
            if !tick() { return }
        }
    }
}
