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
        #expect(readToTheEnd(client) == "reset")
    }

    /// Reads until the socket ends: what the peer already holds comes first,
    /// then the end itself. Only a wait for more input is timed (2 s), by
    /// `poll`, so the verdict is the socket's, not the scheduler's: a
    /// wall-clock deadline over the reads once failed a starved run (the test
    /// took 181 s on two cores) whose first read took the data held and whose
    /// next came after the deadline.
    private func readToTheEnd(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var total = 0
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n > 0 {
                total += n
                // A plain close would leave the kernel delivering megabytes: not an end.
                if total > 1 << 20 { return "more than 1 MiB after the close" }
                continue
            }
            if n == 0 { return "end of stream" }
            switch errno {
            case ECONNRESET: return "reset"
            case EINTR: continue
            case EAGAIN:
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, 2000) == 0 { return "nothing within 2 s" }
            default: return "error \(errno)"
            }
        }
    }
}
