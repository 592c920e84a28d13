import SwitchboardTLSTestSupport
import Testing

@testable import SwitchboardTLS

@Suite struct TLSDataTests {
    let certificates: TestCertificates
    let context: TLSContext

    init() throws {
        certificates = try TestCertificates()
        context = try certificates.makeContext()
    }

    private func connectedPair(maximumVersion: String = "TLSv1.3") throws -> TLSPair {
        let pair = try TLSPair(context: context, client: TLSClientForTesting(maximumVersion: maximumVersion))
        try pair.pump()
        try #require(pair.server.isHandshakeComplete)
        return pair
    }

    @Test(arguments: ["TLSv1.2", "TLSv1.3"])
    func smallMessagesRoundTrip(version: String) throws {
        let pair = try connectedPair(maximumVersion: version)
        #expect(try pair.client.write(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == 18)
        try pair.pump()
        #expect(pair.serverReceived == Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(try pair.server.write(Array("HTTP/1.1 200 OK\r\n\r\n".utf8)) == 19)
        try pair.pump()
        #expect(pair.clientReceived == Array("HTTP/1.1 200 OK\r\n\r\n".utf8))
    }

    @Test func oneMebibyteEachWayAndBuffersShrinkAfterwards() throws {
        let pair = try connectedPair()
        var generator = SystemRandomNumberGenerator()
        let upload = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let download = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(try pair.client.write(upload) == upload.count)
        #expect(try pair.server.write(download) == download.count)
        // Ciphertext for a whole mebibyte sits in the server's BIO before draining.
        #expect(pair.server.bufferedCapacity > 1 << 20)
        try pair.pump()
        #expect(pair.serverReceived == upload)
        #expect(pair.clientReceived == download)
        // Both memory BIOs are empty again, and the megabyte-sized buffers were given back.
        #expect(!pair.server.hasPendingCiphertext)
        #expect(pair.server.bufferedCapacity <= 2 * MemoryBIO.retainedCapacityLimit)
    }

    @Test func closeNotifyReadsAsClosed() throws {
        let pair = try connectedPair()
        _ = try pair.client.write(Array("bye".utf8))
        pair.client.shutdown()
        try pair.pump()
        #expect(pair.serverReceived == Array("bye".utf8))
        #expect(pair.serverSawClose)
        var byte: UInt8 = 0
        // Still closed on a later read.
        #expect(try withUnsafeMutableBytes(of: &byte) { try pair.server.readPlaintext(into: $0) } == .closed)
        pair.server.shutdown()
        #expect(pair.server.hasPendingCiphertext)
        try pair.pump()
        #expect(pair.clientSawClose)
    }

    @Test func keyUpdateRequestedByTheClientIsAnsweredWithTheNextWrite() throws {
        let pair = try connectedPair()
        try pair.client.requestKeyUpdate()
        _ = try pair.client.write(Array("after update".utf8))
        try pair.deliverClientToServer()
        #expect(pair.serverReceived == Array("after update".utf8))
        // OpenSSL answers a KeyUpdate with the next write, not during the read; meanwhile it reports
        // itself "in init" again, which must not make the connection buffer writes as if handshaking.
        #expect(pair.server.isHandshakeComplete)
        _ = try pair.server.write(Array("new keys".utf8))
        try pair.pump()
        #expect(pair.clientReceived == Array("new keys".utf8))
        // Both directions still work under the new keys.
        _ = try pair.client.write(Array("again".utf8))
        try pair.pump()
        #expect(pair.serverReceived == Array("after updateagain".utf8))
    }

    @Test func writesAfterShutdownThrow() throws {
        let pair = try connectedPair()
        pair.server.shutdown()
        pair.server.shutdown()  // a second call queues nothing more and does not fail
        let error = #expect(throws: TLSError.self) { try pair.server.write([1, 2, 3]) }
        #expect(error?.message.contains("shut down") == true)
    }

    @Test func plaintextWrittenBeforeHandshakeIsSentAfterIt() throws {
        let pair = try TLSPair(context: context, client: TLSClientForTesting())
        #expect(try pair.server.write(Array("early ".utf8)) == 6)
        #expect(try pair.server.write(Array("bird".utf8)) == 4)
        #expect(try pair.client.write(Array("client first".utf8)) == 12)
        try pair.pump()
        #expect(pair.clientReceived == Array("early bird".utf8))
        #expect(pair.serverReceived == Array("client first".utf8))
    }

    @Test func drainStopsAtAShortWriteAndResumes() throws {
        let pair = try connectedPair()
        let message = Array(repeating: UInt8(ascii: "a"), count: 1000)
        _ = try pair.server.write(message)
        var sent: [UInt8] = []
        #expect(!pair.server.drainCiphertext { _ in 0 })
        #expect(
            !pair.server.drainCiphertext { chunk in
                sent.append(contentsOf: chunk.prefix(10))
                return 10
            })
        #expect(pair.server.hasPendingCiphertext)
        #expect(
            pair.server.drainCiphertext { chunk in
                sent.append(contentsOf: chunk)
                return chunk.count
            })
        #expect(!pair.server.hasPendingCiphertext)
        sent.withUnsafeBytes { pair.client.receiveCiphertext($0) }
        var buffer = [UInt8](repeating: 0, count: 2000)
        let result = try buffer.withUnsafeMutableBytes { try pair.client.readPlaintext(into: $0) }
        #expect(result == .bytes(1000))
        #expect(Array(buffer.prefix(1000)) == message)
    }

    @Test func endOfStreamWithoutCloseNotifyIsAnErrorAfterBufferedData() throws {
        let pair = try connectedPair()
        _ = try pair.client.write(Array("abc".utf8))
        _ = pair.client.drainCiphertext { chunk in
            pair.server.receiveCiphertext(chunk)
            return chunk.count
        }
        pair.server.receiveEndOfCiphertext()
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) } == .bytes(3))
        let error = #expect(throws: TLSError.self) {
            try buffer.withUnsafeMutableBytes { try pair.server.readPlaintext(into: $0) }
        }
        #expect(error?.message.contains("unexpected eof") == true)
    }

    @Test func endOfStreamAfterCloseNotifyIsClosed() throws {
        let pair = try connectedPair()
        pair.client.shutdown()
        _ = pair.client.drainCiphertext { chunk in
            pair.server.receiveCiphertext(chunk)
            return chunk.count
        }
        pair.server.receiveEndOfCiphertext()
        var byte: UInt8 = 0
        #expect(try withUnsafeMutableBytes(of: &byte) { try pair.server.readPlaintext(into: $0) } == .closed)
    }

    @Test func largeInputBufferIsReleasedOnceConsumed() throws {
        let pair = try connectedPair()
        _ = try pair.client.write(Array(repeating: 7, count: 200_000))
        // Deliver everything in one piece, as a loop with a big receive buffer would.
        var ciphertext: [UInt8] = []
        _ = pair.client.drainCiphertext { chunk in
            ciphertext.append(contentsOf: chunk)
            return chunk.count
        }
        ciphertext.withUnsafeBytes { pair.server.receiveCiphertext($0) }
        #expect(pair.server.bufferedCapacity > 200_000)
        var total = 0
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while case .bytes(let count) = try buffer.withUnsafeMutableBytes({ try pair.server.readPlaintext(into: $0) }) {
            total += count
        }
        #expect(total == 200_000)
        #expect(pair.server.bufferedCapacity <= 2 * MemoryBIO.retainedCapacityLimit)
    }
}
