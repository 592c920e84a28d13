import SwitchboardIO
import SwitchboardSystem
import Synchronization
import Testing

@testable import SwitchboardLoop

#if canImport(Glibc)
import Glibc
#endif

/// Keeps what it receives; pauses reading after its first input when told to,
/// and counts the drains and FINs it hears. Touched on the loop's thread; the
/// test reads the snapshot behind the mutex.
final class PausingHandler: ConnectionHandler, @unchecked Sendable {
    let received = Mutex<[UInt8]>([])
    let deliveries = Counter()
    let drains = Counter()
    let finSeen = Flag()
    let pauseOnFirstInput: Bool
    nonisolated(unsafe) var connection: Connection?

    init(pauseOnFirstInput: Bool) { self.pauseOnFirstInput = pauseOnFirstInput }

    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: Connection) {
        received.withLock { $0.append(contentsOf: bytes) }
        deliveries.increment()
        if pauseOnFirstInput && deliveries.value == 1 { connection.pauseReading() }
    }
    func timerFired(on connection: Connection) {}
    func peerClosed(on connection: Connection) {
        finSeen.set()
        connection.closeAfterFlush()
    }
    func closed(_ connection: Connection) {}
    func outboundDrained(on connection: Connection) { drains.increment() }

    var receivedCount: Int { received.withLock { $0.count } }
}

/// Plaintext through unchanged, but handed out at most 7 bytes per read, so
/// that a pause leaves decrypted input waiting inside the cipher as TLS does.
final class SevenByteCipher: StreamCipher {
    private var pending: [UInt8] = []
    func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) { pending.append(contentsOf: bytes) }
    func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws -> CipherRead {
        guard !pending.isEmpty else { return .wantMoreCiphertext }
        let n = min(7, pending.count, buffer.count)
        for index in 0..<n { buffer[index] = pending[index] }
        pending.removeFirst(n)
        return .bytes(n)
    }
    func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws { outgoing.append(contentsOf: bytes) }
    private var outgoing: [UInt8] = []
    func drainCiphertext(_ body: (UnsafeRawBufferPointer) -> Void) {
        outgoing.withUnsafeBytes { body($0) }
        outgoing.removeAll()
    }
    func shutdown() {}
}

/// `pauseReading`/`resumeReading` and `outboundDrained` on a real socket and
/// an edge-triggered loop.
@Suite struct ReadPauseTests {
    /// A loop running on its own thread with one connection over a socket pair.
    private struct Setup {
        let loop: EventLoop
        let thread: NamedThread
        let client: Int32
        let handler: PausingHandler

        func stop() {
            loop.stop()
            thread.join()
            close(client)
        }

        /// Runs `body` with the connection on the loop's thread and waits for it.
        func onLoop(_ body: @escaping (Connection) -> Void) {
            nonisolated(unsafe) let body = body
            let handler = self.handler
            let done = Flag()
            loop.execute {
                if let connection = handler.connection { body(connection) }
                done.set()
            }
            _ = waitUntil { done.isSet }
        }

        func send(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                precondition(n > 0)
                offset += n
            }
        }
    }

    private func setUp(pause: Bool, cipher: StreamCipher? = nil) throws -> Setup {
        Posix.ignoreSIGPIPE()
        let loop = try EventLoop(index: 0, maxFileDescriptors: 65_536)
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        try Posix.setNonBlocking(fds[0])
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fds[1], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let handler = PausingHandler(pauseOnFirstInput: pause)
        let server = fds[0]
        nonisolated(unsafe) let cipher = cipher
        let opened = Flag()
        loop.execute {
            handler.connection = try? Connection.open(
                fd: server, loop: loop, cipher: cipher, maxOutboundBytes: 64 << 20, handler: handler)
            if handler.connection != nil { opened.set() }
        }
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        let setup = Setup(loop: loop, thread: thread, client: fds[1], handler: handler)
        guard waitUntil(seconds: 5, { opened.isSet }) else {
            setup.stop()
            throw SystemError(call: "Connection.open", errno: EBADF)
        }
        return setup
    }

    private static func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 + seed) &* 131 &+ 7) }
    }

    /// While paused nothing more is read, whatever the peer sends; on resuming,
    /// what arrived meanwhile is read with no new edge (the peer sends nothing after).
    @Test func aPausedConnectionReadsNothingUntilResumedThenWhatWaited() throws {
        let setup = try setUp(pause: true)
        defer { setup.stop() }
        let first = Self.pattern(1000)
        setup.send(first)
        #expect(waitUntil { setup.handler.receivedCount == 1000 })
        let rest = Self.pattern(200_000, seed: 1000)
        setup.send(Array(rest[..<100_000]))
        usleep(100_000)
        #expect(setup.handler.receivedCount == 1000, "read while paused")
        setup.onLoop { #expect($0.isReadingPaused) }
        setup.send(Array(rest[100_000...]))  // queued in the kernel behind the rest
        setup.onLoop { $0.resumeReading() }
        #expect(waitUntil { setup.handler.receivedCount == 201_000 }, "what waited in the kernel was not read")
        #expect(setup.handler.received.withLock { $0 } == first + rest)
    }

    /// The peer's FIN that came while paused is seen after its data, on resuming.
    @Test func aFINThatCameWhilePausedIsSeenAfterTheData() throws {
        let setup = try setUp(pause: true)
        defer { setup.stop() }
        setup.send([1, 2, 3])
        #expect(waitUntil { setup.handler.receivedCount == 3 })
        setup.send(Self.pattern(5000))
        shutdown(setup.client, Int32(SHUT_WR))
        usleep(100_000)
        #expect(!setup.handler.finSeen.isSet && setup.handler.receivedCount == 3)
        setup.onLoop { $0.resumeReading() }
        #expect(waitUntil { setup.handler.finSeen.isSet }, "the FIN was lost while paused")
        #expect(setup.handler.receivedCount == 5003)
    }

    /// A pause leaves decrypted input in the cipher; resuming hands it over first,
    /// though no ciphertext arrives after.
    @Test func aPauseKeepsDecryptedInputInTheCipher() throws {
        let setup = try setUp(pause: true, cipher: SevenByteCipher())
        defer { setup.stop() }
        let input = Self.pattern(100)
        setup.send(input)
        #expect(waitUntil { setup.handler.receivedCount == 7 })
        usleep(50_000)
        #expect(setup.handler.receivedCount == 7, "the cipher's plaintext was handed over while paused")
        setup.onLoop { $0.resumeReading() }
        #expect(waitUntil { setup.handler.receivedCount == 100 })
        #expect(setup.handler.received.withLock { $0 } == input)
    }

    /// A write queued behind a full socket is reported drained once the peer has
    /// read it all; a write that went out at once is not reported.
    @Test func aQueuedWriteIsReportedDrainedOnce() throws {
        let setup = try setUp(pause: false)
        defer { setup.stop() }
        let outcomes = Mutex<[WriteOutcome]>([])
        let big = Self.pattern(4 << 20)
        setup.onLoop { connection in
            outcomes.withLock { $0.append(connection.write([1, 2, 3])) }
        }
        usleep(50_000)
        #expect(setup.handler.drains.value == 0, "a write that went out at once was reported")
        setup.onLoop { connection in
            outcomes.withLock { $0.append(connection.write(big)) }
        }
        #expect(outcomes.withLock { $0 } == [.sent, .queued])
        #expect(setup.handler.drains.value == 0, "drained before the peer read")
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received.count < big.count + 3 {
            let n = read(setup.client, &buffer, buffer.count)
            guard n > 0 else { break }
            received.append(contentsOf: buffer[0..<n])
        }
        #expect(received == [1, 2, 3] + big)
        #expect(waitUntil { setup.handler.drains.value == 1 }, "never reported drained")
        usleep(50_000)
        #expect(setup.handler.drains.value == 1)
    }
}
