import SwitchboardIO
import SwitchboardSystem
import Synchronization
import Testing

@testable import SwitchboardLoop

#if canImport(Glibc)
import Glibc
#endif

/// Echoes what it receives and records how the connection ended.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

final class EchoHandler: ConnectionHandler {
    let closedFlag: Flag
    init(closedFlag: Flag) { self.closedFlag = closedFlag }
    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: Connection) {
        connection.write(UnsafeRawBufferPointer(bytes))
    }
    func timerFired(on connection: Connection) { connection.closeAfterFlush() }
    func peerClosed(on connection: Connection) { connection.closeAfterFlush() }
    func closed(_ connection: Connection) { closedFlag.set() }
}

final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    func increment() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// Waits, polling, until `condition` holds or `seconds` pass; returns whether it held.
/// Every wait in these tests is bounded, so a broken loop fails a test instead of hanging it.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    var clock = timespec()
    clock_gettime(CLOCK_MONOTONIC, &clock)
    let deadline = Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 + seconds
    while !condition() {
        clock_gettime(CLOCK_MONOTONIC, &clock)
        if Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9 >= deadline { return false }
        usleep(1000)
    }
    return true
}

/// Counts `backlogExceeded` calls; never reads, so its peer's backlog only grows.
final class BacklogHandler: ConnectionHandler {
    let exceeded = Counter()
    let closings = Counter()
    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: Connection) {}
    func timerFired(on connection: Connection) {}
    func peerClosed(on connection: Connection) {}
    func closed(_ connection: Connection) { closings.increment() }
    func backlogExceeded(on connection: Connection) { exceeded.increment() }
}

@Suite struct EventLoopTests {
    private func socketPair() -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        let rc = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
        precondition(rc == 0)
        return (fds[0], fds[1])
    }

    private func readAll(_ fd: Int32, count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while out.count < count {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    @Test func executeRunsPostedTasksOnTheNamedThread() throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 256)
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        let counter = Counter()
        for _ in 0..<1000 {
            #expect(loop.execute { counter.increment() })
        }
        let done = Flag()
        loop.execute { done.set() }
        #expect(waitUntil { done.isSet }, "the loop never ran the last task")
        #expect(counter.value == 1000)
        loop.stop()
        thread.join()
    }

    @Test func fullQueueRefusesWork() throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 256, taskQueueCapacity: 4)
        // The loop is not running, so nothing drains.
        for _ in 0..<4 { #expect(loop.execute {}) }
        #expect(!loop.execute {})
    }

    @Test func connectionEchoesLargeDataThroughBackpressure() throws {
        let loop = try EventLoop(index: 0, maxFileDescriptors: 65_536)
        let (server, client) = socketPair()
        try Posix.setNonBlocking(server)
        let closed = Flag()
        let handler = EchoHandler(closedFlag: closed)
        let fd = server
        nonisolated(unsafe) let h = handler
        let opened = Flag()
        loop.execute {
            guard (try? Connection.open(fd: fd, loop: loop, cipher: nil, maxOutboundBytes: 64 << 20, handler: h)) != nil
            else { return }
            opened.set()
        }
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        // Without a connection nothing would echo, and the reader below would wait forever.
        try #require(waitUntil { opened.isSet }, "the connection could not be registered")
        // 4 MiB exceeds the socket buffers, so the echo must queue and resume on EPOLLOUT.
        let payload = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let received = Box<[UInt8]>([])
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let reader = NamedThread.spawn(name: "reader") { received.value = self.readAll(client, count: payload.count) }
        var offset = 0
        while offset < payload.count {
            let n = payload[offset...].withUnsafeBytes { write(client, $0.baseAddress, min($0.count, 65536)) }
            guard n > 0 else { break }  // timed out: the echo stopped; the comparison below fails
            offset += n
        }
        reader.join()
        #expect(received.value == payload)
        shutdown(client, Int32(SHUT_WR))
        // The FIN already came, so the close must not wait out the 3 s linger for it
        // (which would end the connection only when its close timer fires).
        #expect(waitUntil(seconds: 2) { closed.isSet }, "the connection lingered for a FIN it already had")
        close(client)
    }

    /// Writes made while the loop runs posted tasks are held per connection and
    /// sent after the tasks; a backlog crossing the cap is reported once.
    @Test func heldWritesPastTheCapReachTheHandlerOnce() throws {
        let held = Box(false)
        let outcome = try writeSixtyFourChunks { connection in
            held.value = connection.loop.holdsWrites && connection.loop.corkOwner == nil
            return { body in body() }
        }
        #expect(held.value, "a posted task runs while the loop holds writes")
        #expect(outcome.exceeded == 1, "the handler hears of the crossing once, not per write")
        #expect(outcome.writes.first == .sent, "held, not written")
        #expect(outcome.writes.contains(.overLimit))
    }

    /// `batchWrites` outside posted tasks and outside input handling gathers
    /// the writes in the loop's cork; a backlog crossing the cap at a flush of
    /// the cork is reported once.
    @Test func corkedWritesPastTheCapReachTheHandlerOnce() throws {
        let outsideTasksAndInput = Box(false)
        let corked = Box(false)
        let outcome = try writeSixtyFourChunks(scheduled: true) { connection in
            let loop = connection.loop
            outsideTasksAndInput.value = !loop.holdsWrites && loop.corkOwner == nil
            return { body in
                connection.batchWrites {
                    corked.value = loop.corkOwner === connection
                    body()
                }
            }
        }
        #expect(outsideTasksAndInput.value, "scheduled work runs outside tasks and input")
        #expect(corked.value, "batchWrites took the loop's cork")
        #expect(outcome.exceeded == 1, "the handler hears of the crossing once, not per write")
        #expect(outcome.writes.prefix(16).allSatisfy { $0 == .sent }, "the cork takes 256 KiB before a flush")
        #expect(outcome.writes.contains(.overLimit))
    }

    /// Opens a connection whose peer never reads, with a 64 KiB backlog cap, and
    /// writes 64 chunks of 16 KiB to it inside `wrap(connection)`, from a posted
    /// task or (with `scheduled`) from work scheduled on the loop.
    private func writeSixtyFourChunks(
        scheduled: Bool = false,
        _ wrap: @escaping (Connection) -> (_ body: () -> Void) -> Void
    ) throws -> (exceeded: Int, writes: [WriteOutcome]) {
        // The loop keeps flushing the backlog after the peer is gone, as the server does with SIGPIPE ignored.
        Posix.ignoreSIGPIPE()
        let loop = try EventLoop(index: 0, maxFileDescriptors: 65_536)
        let (server, client) = socketPair()
        defer { close(client) }
        try Posix.setNonBlocking(server)
        let handler = BacklogHandler()
        nonisolated(unsafe) let h = handler
        nonisolated(unsafe) let wrap = wrap
        let finished = Flag()
        let writes = Box<[WriteOutcome]>([])
        let write: @Sendable () -> Void = {
            defer { finished.set() }
            guard
                let connection = try? Connection.open(
                    fd: server, loop: loop, cipher: nil, maxOutboundBytes: 64 << 10, handler: h)
            else { return }
            let chunk = [UInt8](repeating: 7, count: 16 << 10)
            wrap(connection)({
                for _ in 0..<64 { writes.value.append(connection.write(chunk)) }
            })
        }
        loop.execute {
            if scheduled { loop.after(milliseconds: 0, write) } else { write() }
        }
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        try #require(waitUntil { finished.isSet }, "the writes never ran")
        try #require(writes.value.count == 64, "the connection could not be registered")
        return (handler.exceeded.value, writes.value)
    }
}
