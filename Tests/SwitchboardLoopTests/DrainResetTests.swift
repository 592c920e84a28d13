import SwitchboardIO
import SwitchboardSystem
import Testing

@testable import SwitchboardLoop

#if canImport(Glibc)
import Glibc
#endif

/// `closeAfterFlush` gives a peer 3 s to take what is queued. One that takes
/// none of it in that time is reset: a plain close left the kernel holding
/// the socket and its megabytes, trying to deliver them behind the peer's
/// zero window (a chaos run's slow consumer did not see its connection end
/// for more than 5 s after the gateway cut it off).
@Suite struct DrainResetTests {
    @Test func aPeerThatTakesNothingWithinTheGraceIsReset() throws {
        // The peer: a small receive buffer, and no read until the grace is over.
        let pair = try LoopbackPair(peerReceiveBufferBytes: 4096)
        let client = pair.client
        let server = pair.server
        defer { Posix.close(client) }

        let loop = try EventLoop(index: 0, maxFileDescriptors: 65_536)
        nonisolated(unsafe) let handler = BacklogHandler()
        let queued = Flag()
        loop.execute {
            guard
                let connection = try? Connection.open(
                    fd: server, loop: loop, cipher: nil, maxOutboundBytes: 64 << 20, handler: handler)
            else { return }
            // Far more than the kernel takes for a peer that does not read: some stays queued here.
            let chunk = [UInt8](repeating: 7, count: 64 << 10)
            for _ in 0..<128 { connection.write(chunk) }
            connection.closeAfterFlush()
            queued.set()
        }
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        var started = timespec()
        clock_gettime(CLOCK_MONOTONIC, &started)
        try #require(waitUntil { queued.isSet }, "the connection could not be registered")
        // The peer reads only once the loop has given up on it: a read before
        // would take something, and a loop thread starved past the grace (a
        // whole test suite on two cores) would then see a peer that reads.
        try #require(
            waitUntil(seconds: Double(Connection.closeTimeoutMilliseconds) / 1000 + 30) { handler.closings.value == 1 },
            "the loop never closed the connection")
        var ended = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ended)
        let waitedMilliseconds = (ended.tv_sec - started.tv_sec) * 1000 + (ended.tv_nsec - started.tv_nsec) / 1_000_000
        #expect(waitedMilliseconds >= Int(Connection.closeTimeoutMilliseconds), "closed before the grace was over")

        // Now the peer reads: it must learn at once that the connection is gone.
        var buffer = [UInt8](repeating: 0, count: 65536)
        var outcome = "nothing within 2 s"
        _ = waitUntil(seconds: 2) {
            let n = read(client, &buffer, buffer.count)
            if n == 0 { outcome = "end of stream" }
            if n < 0 && errno == ECONNRESET { outcome = "reset" }
            return outcome != "nothing within 2 s"
        }
        #expect(outcome == "reset")
    }
}
