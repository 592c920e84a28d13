import SwitchboardSystem
import Testing

@testable import SwitchboardLoop

#if canImport(Glibc)
import Glibc
#endif

@Suite struct ListenerTests {
    /// Opens `count` connections to `port` and waits until each is
    /// established, so all of them sit in the listener's backlog at once.
    private func connectAll(_ count: Int, port: UInt16) throws -> [Int32] {
        let address = try SocketAddress(parsing: "127.0.0.1:\(port)")
        var clients: [Int32] = []
        for _ in 0..<count {
            let fd = try Socket.connect(to: address)
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            #expect(poll(&entry, 1, 2000) == 1, "a connection to the listener did not complete")
            try Socket.finishConnect(fd)
            clients.append(fd)
        }
        return clients
    }

    /// A burst of connections is taken a turn at a time: work posted to the
    /// loop runs after the first turn, not after the whole backlog, and every
    /// connection is still accepted without another one arriving to wake the
    /// listener (its epoll registration is edge-triggered).
    @Test func aBurstOfConnectionsIsAcceptedInTurnsWithTheLoopsWorkBetween() throws {
        // Beside the rest of the suite this process holds many descriptors:
        // the listener's number can be well above a few hundred.
        let loop = try EventLoop(index: 0, maxFileDescriptors: 65_536)
        let events = Box<[String]>([])
        let listener = try Listener(
            address: try SocketAddress(parsing: "127.0.0.1:0"), backlog: 128, loop: loop,
            onAccept: { fd, _ in
                events.value.append("accept")
                Posix.close(fd)
            },
            onError: { _ in events.value.append("error") })
        let burst = Listener.acceptsPerTurn * 2 + 8
        let clients = try connectAll(burst, port: listener.port)
        defer { for fd in clients { Posix.close(fd) } }
        let posted = Flag()
        loop.execute {
            events.value.append("task")
            posted.set()
        }

        let thread = NamedThread.spawn(name: "test-listener") { loop.run() }
        // Read the log on the loop's own thread, once everything had its chance.
        let snapshot = Box<[String]>([])
        #expect(
            waitUntil {
                let finished = Flag()
                loop.execute {
                    snapshot.value = events.value
                    finished.set()
                }
                _ = waitUntil(seconds: 2) { finished.isSet }
                return snapshot.value.filter { $0 == "accept" }.count == burst
            }, "not every connection of the burst was accepted")
        loop.stop()
        thread.join()
        listener.close()

        #expect(posted.isSet)
        #expect(!snapshot.value.contains("error"))
        #expect(
            snapshot.value.firstIndex(of: "task") == Listener.acceptsPerTurn,
            "posted work should run after one turn of accepts: \(snapshot.value)")
    }
}
