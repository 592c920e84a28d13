import SwitchboardSystem
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Two ends of a loopback TCP connection: `client`, a peer whose receive
/// buffer is made small after connecting (a slow reader, whose window stays
/// small), and `server`, the accepted end, non-blocking for a `Connection`.
/// The caller closes both (`server` once a `Connection` owns it, by it).
struct LoopbackPair {
    let client: Int32
    let server: Int32

    init(peerReceiveBufferBytes: Int32) throws {
        Posix.ignoreSIGPIPE()
        let listener = try Socket.listen(
            on: SocketAddress(parsing: "127.0.0.1:0"), reusePort: false, backlog: 4)
        defer { Posix.close(listener) }
        let port = try #require(Socket.localPort(listener))
        let client = try Socket.connect(to: SocketAddress(parsing: "127.0.0.1:\(port)"))
        let server = accept(listener, nil, nil)
        do {
            try Posix.setOption(client, level: SOL_SOCKET, name: SO_RCVBUF, value: peerReceiveBufferBytes)
            try #require(server >= 0)
            try Posix.setNonBlocking(server)
        } catch {
            Posix.close(client)
            if server >= 0 { Posix.close(server) }
            throw error
        }
        self.client = client
        self.server = server
    }
}
