import SwitchboardIO
import SwitchboardSystem
import Synchronization
import Testing

@testable import SwitchboardLoop

#if canImport(Glibc)
import Glibc
#endif

/// Takes 10 ms of the loop for every input it is handed: bulk traffic that
/// makes each pass over many such connections long.
final class SlowHandler: ConnectionHandler {
    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: Connection) {
        let end = MonotonicClock.nanoseconds() + 10_000_000
        while MonotonicClock.nanoseconds() < end {}
    }
    func timerFired(on connection: Connection) {}
    func peerClosed(on connection: Connection) { connection.closeNow() }
    func closed(_ connection: Connection) {}
}

@Suite struct PrioritySetTests {
    private func socketPair() throws -> (server: Int32, client: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        try Posix.setNonBlocking(fds[0])
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fds[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return (fds[0], fds[1])
    }

    /// Milliseconds from writing a byte to `client` to reading its echo.
    private func echoMilliseconds(_ client: Int32) -> Double {
        let start = MonotonicClock.nanoseconds()
        var byte: UInt8 = 7
        guard write(client, &byte, 1) == 1, read(client, &byte, 1) == 1 else { return .infinity }
        return Double(MonotonicClock.nanoseconds() - start) / 1e6
    }

    /// Opens `server` on the loop's thread and waits until it is registered.
    private func open(
        _ server: Int32, on loop: EventLoop, handler: any ConnectionHandler<Connection>, priority: Bool
    ) throws -> Box<Connection?> {
        let opened = Box<Connection?>(nil)
        let done = Flag()
        nonisolated(unsafe) let handler = handler
        loop.execute {
            opened.value = try? Connection.open(
                fd: server, loop: loop, cipher: nil, maxOutboundBytes: 1 << 20, handler: handler, priority: priority)
            done.set()
        }
        try #require(waitUntil { done.isSet })
        try #require(opened.value != nil)
        return opened
    }

    /// Runs `body` on a loop kept busy by 100 bulk connections, each fed a
    /// byte every 10 ms: a pass over them takes about a second.
    private func withBulkLoad(_ body: (EventLoop) throws -> Void) throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 4096)
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        var busyClients: [Int32] = []
        for _ in 0..<100 {
            let (server, client) = try socketPair()
            _ = try open(server, on: loop, handler: SlowHandler(), priority: false)
            busyClients.append(client)
        }
        let feeding = Flag()
        let clients = busyClients
        let feeder = NamedThread.spawn(name: "feeder") {
            var byte: UInt8 = 1
            while !feeding.isSet {
                for client in clients { _ = write(client, &byte, 1) }
                usleep(10_000)
            }
        }
        defer {
            feeding.set()
            feeder.join()
            for client in clients { close(client) }
        }
        usleep(300_000)
        try body(loop)
    }

    @Test func aPriorityConnectionIsAnsweredWithinAPassThatTakesSeconds() throws {
        try withBulkLoad { loop in
            let (priorityServer, priorityClient) = try socketPair()
            _ = try open(priorityServer, on: loop, handler: EchoHandler(closedFlag: Flag()), priority: true)
            let (plainServer, plainClient) = try socketPair()
            _ = try open(plainServer, on: loop, handler: EchoHandler(closedFlag: Flag()), priority: false)
            defer {
                close(priorityClient)
                close(plainClient)
            }
            var priority: [Double] = []
            var plain: [Double] = []
            for _ in 0..<3 {
                priority.append(echoMilliseconds(priorityClient))
                plain.append(echoMilliseconds(plainClient))
            }
            // The premise: an ordinary connection waits for the pass over the bulk ones.
            #expect(plain.min()! > 400, "passes were not long, so this test shows nothing: \(plain)")
            // A priority one waits at most a few of the bulk connections' turns.
            #expect(priority.max()! < 150, "the priority connection waited for the pass: \(priority)")
        }
    }

    @Test func workPostedFirstRunsWithinAPassThatTakesSeconds() throws {
        try withBulkLoad { loop in
            var first: [Double] = []
            var ordinary: [Double] = []
            for _ in 0..<3 {
                let postedAt = MonotonicClock.nanoseconds()
                let ranFirst = Box<UInt64>(0)
                let ranOrdinary = Box<UInt64>(0)
                let done = Flag()
                #expect(
                    loop.execute {
                        ranOrdinary.value = MonotonicClock.nanoseconds()
                        done.set()
                    })
                #expect(loop.executeFirst { ranFirst.value = MonotonicClock.nanoseconds() })
                try #require(waitUntil(seconds: 5) { done.isSet })
                try #require(ranFirst.value != 0)
                first.append(Double(ranFirst.value - postedAt) / 1e6)
                ordinary.append(Double(ranOrdinary.value - postedAt) / 1e6)
            }
            // The premise: ordinary work waits for the end of the pass.
            #expect(ordinary.max()! > 150, "passes were not long, so this test shows nothing: \(ordinary)")
            #expect(first.max()! < 150, "work posted first waited for the pass: \(first)")
        }
    }

    @Test func aConnectionThatLeavesThePrioritySetLosesNoInput() throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 4096)
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        let (server, client) = try socketPair()
        defer { close(client) }
        let connection = try open(server, on: loop, handler: EchoHandler(closedFlag: Flag()), priority: true)
        #expect(echoMilliseconds(client) < 1000)
        // Input that arrives before the move, and is read only after it.
        let moved = Flag()
        loop.execute {
            let bytes: [UInt8] = [1, 2, 3]
            _ = bytes.withUnsafeBytes { write(client, $0.baseAddress, 3) }
            connection.value?.leavePriority()
            moved.set()
        }
        try #require(waitUntil { moved.isSet })
        var echoed = [UInt8](repeating: 0, count: 3)
        #expect(read(client, &echoed, 3) == 3)
        #expect(echoed == [1, 2, 3])
        #expect(echoMilliseconds(client) < 1000, "the moved connection no longer echoes")
    }
}
