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

/// Counts `backlogExceeded` calls; never reads, so its peer's backlog only grows.
final class BacklogHandler: ConnectionHandler {
    let exceeded = Counter()
    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: Connection) {}
    func timerFired(on connection: Connection) {}
    func peerClosed(on connection: Connection) {}
    func closed(_ connection: Connection) {}
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
        while !done.isSet { usleep(1000) }
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
        let loop = try EventLoop(index: 0, maxFileDescriptors: 1024)
        let (server, client) = socketPair()
        try Posix.setNonBlocking(server)
        let closed = Flag()
        let handler = EchoHandler(closedFlag: closed)
        let fd = server
        nonisolated(unsafe) let h = handler
        loop.execute {
            _ = try? Connection.open(fd: fd, loop: loop, cipher: nil, maxOutboundBytes: 64 << 20, handler: h)
        }
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        // 4 MiB exceeds the socket buffers, so the echo must queue and resume on EPOLLOUT.
        let payload = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let received = Box<[UInt8]>([])
        let reader = NamedThread.spawn(name: "reader") { received.value = self.readAll(client, count: payload.count) }
        var offset = 0
        while offset < payload.count {
            let n = payload[offset...].withUnsafeBytes { write(client, $0.baseAddress, min($0.count, 65536)) }
            precondition(n > 0)
            offset += n
        }
        reader.join()
        #expect(received.value == payload)
        shutdown(client, Int32(SHUT_WR))
        var spins = 0
        while !closed.isSet && spins < 500 {
            usleep(10_000)
            spins += 1
        }
        #expect(closed.isSet)
        // The FIN already came, so the close must not wait out the 3 s linger for it.
        #expect(spins < 100, "closed after \(spins * 10) ms")
        close(client)
        loop.stop()
        thread.join()
    }

    @Test func batchedWritesPastTheCapReachTheHandlerOnce() throws {
        // The loop keeps flushing the backlog after the peer is gone, as the server does with SIGPIPE ignored.
        Posix.ignoreSIGPIPE()
        let loop = try EventLoop(index: 0, maxFileDescriptors: 1024)
        let (server, client) = socketPair()
        try Posix.setNonBlocking(server)
        let handler = BacklogHandler()
        nonisolated(unsafe) let h = handler
        let finished = Flag()
        let outcome = Box<[WriteOutcome]>([])
        loop.execute {
            guard
                let connection = try? Connection.open(
                    fd: server, loop: loop, cipher: nil, maxOutboundBytes: 64 << 10, handler: h)
            else { return }
            let chunk = [UInt8](repeating: 7, count: 16 << 10)
            // Corked: every write is gathered and "sent"; the crossing shows only at the flush.
            for _ in 0..<64 {
                connection.batchWrites { outcome.value.append(connection.write(chunk)) }
            }
            finished.set()
        }
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        while !finished.isSet { usleep(1000) }
        #expect(handler.exceeded.value == 1, "the handler hears of the crossing once, not per write")
        #expect(outcome.value.contains(.sent))
        close(client)
        loop.stop()
        thread.join()
    }
}
