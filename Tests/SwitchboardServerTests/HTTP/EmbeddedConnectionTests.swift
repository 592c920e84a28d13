import SwitchboardEmbedded
import SwitchboardIO
import Testing

/// Records what the in-memory connection hands it; pauses after `pauseAfter` reads.
private final class RecordingHandler: ConnectionHandler {
    var received: [UInt8] = []
    var reads: [Int] = []
    var drains = 0
    var fin = false
    var pauseAfter = Int.max

    func received(_ bytes: UnsafeMutableRawBufferPointer, on connection: EmbeddedConnection) {
        received.append(contentsOf: bytes)
        reads.append(bytes.count)
        if reads.count == pauseAfter { connection.pauseReading() }
    }
    func timerFired(on connection: EmbeddedConnection) {}
    func peerClosed(on connection: EmbeddedConnection) { fin = true }
    func closed(_ connection: EmbeddedConnection) {}
    func outboundDrained(on connection: EmbeddedConnection) { drains += 1 }
}

/// The test connection keeps the real one's rules for pausing input and for
/// queued writes, so that the server's streaming is tested in-process.
@Suite struct EmbeddedConnectionTests {
    @Test func inputWaitsWhilePausedAndIsReadOnTheLoopsNextPassAfterResuming() {
        let loop = EmbeddedLoop()
        let connection = EmbeddedConnection(loop: loop)
        let handler = RecordingHandler()
        handler.pauseAfter = 1
        connection.handler = handler
        connection.readSize = 1000
        connection.receive([UInt8](repeating: 1, count: 10))
        #expect(connection.isReadingPaused && handler.reads == [10])
        connection.receive([UInt8](repeating: 2, count: 2500))
        connection.peerClose()
        #expect(handler.reads == [10] && connection.unreadInbound.count == 2500 && !handler.fin)
        connection.resumeReading()
        #expect(handler.reads == [10], "resuming reads later in the pass, not inside the call")
        loop.runPending()
        #expect(handler.reads == [10, 1000, 1000, 500], "reads of at most readSize")
        #expect(handler.received == [UInt8](repeating: 1, count: 10) + [UInt8](repeating: 2, count: 2500))
        #expect(handler.fin, "the FIN comes after the data")
        #expect(connection.deliveredBytes == 2510)
    }

    @Test func pausingAgainInsideAReadStopsTheRest() {
        let loop = EmbeddedLoop()
        let connection = EmbeddedConnection(loop: loop)
        let handler = RecordingHandler()
        handler.pauseAfter = 1
        connection.handler = handler
        connection.readSize = 100
        connection.pauseReading()
        connection.receive([UInt8](repeating: 3, count: 350))
        handler.pauseAfter = 2
        connection.resumeReading()
        loop.runPending()
        #expect(handler.reads == [100, 100] && connection.isReadingPaused && connection.unreadInbound.count == 150)
    }

    @Test func writesPastTheSocketBufferQueueAndDrainWhenThePeerReads() {
        let loop = EmbeddedLoop()
        let connection = EmbeddedConnection(loop: loop, maxOutboundBytes: 1000)
        let handler = RecordingHandler()
        connection.handler = handler
        connection.socketBufferBytes = 1000
        #expect(connection.write([UInt8](repeating: 1, count: 600)) == .sent)
        #expect(connection.write([UInt8](repeating: 2, count: 600)) == .queued)
        #expect(connection.write([UInt8](repeating: 3, count: 1200)) == .overLimit)
        #expect(connection.backlog.count == 1400 && handler.drains == 0)
        #expect(connection.takeOutbound().count == 1000)
        #expect(handler.drains == 0)
        #expect(connection.takeOutbound().count == 1000)
        #expect(handler.drains == 1, "the backlog is in the socket buffer now")
        #expect(connection.takeOutbound().count == 400)
        #expect(handler.drains == 1)
    }
}
