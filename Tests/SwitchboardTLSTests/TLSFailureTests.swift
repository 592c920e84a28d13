import SwitchboardTLS
import SwitchboardTLSTestSupport
import Testing

@Suite struct TLSFailureTests {
    let certificates: TestCertificates
    let context: TLSContext

    init() throws {
        certificates = try TestCertificates()
        context = try certificates.makeContext()
    }

    /// Feeds `bytes` to a fresh server connection and returns the error its first read throws.
    private func failure(after bytes: [UInt8], endOfStream: Bool = false) throws -> (TLSConnection, TLSError?) {
        let server = try TLSConnection(context: context)
        bytes.withUnsafeBytes { server.receiveCiphertext($0) }
        if endOfStream { server.receiveEndOfCiphertext() }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let error = #expect(throws: TLSError.self) {
            try buffer.withUnsafeMutableBytes { try server.readPlaintext(into: $0) }
        }
        return (server, error)
    }

    @Test func garbageClientHelloThrowsAndQueuesAnAlert() throws {
        // A handshake record header around a body that is not a ClientHello.
        var garbage: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x20]
        garbage += (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let (server, error) = try failure(after: garbage)
        #expect(error?.message.hasPrefix("TLS handshake failed") == true)
        #expect(error?.message.contains("error:") == true)  // carries OpenSSL's queue text
        #expect(server.hasPendingCiphertext)  // the fatal alert, for the loop to send before closing
        // The connection stays failed, with the same explanation.
        var buffer = [UInt8](repeating: 0, count: 16)
        let again = #expect(throws: TLSError.self) {
            try buffer.withUnsafeMutableBytes { try server.readPlaintext(into: $0) }
        }
        #expect(again?.message == error?.message)
        #expect(throws: TLSError.self) { try server.writePlaintext(UnsafeRawBufferPointer(start: nil, count: 0)) }
    }

    @Test func randomBytesThrow() throws {
        let (_, error) = try failure(after: Array(repeating: 0xAB, count: 64))
        #expect(error?.message.hasPrefix("TLS handshake failed") == true)
    }

    @Test func plainHTTPOnTheTLSPortThrows() throws {
        let (_, error) = try failure(after: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(error?.message.contains("http request") == true)
    }

    @Test func truncatedClientHelloThenEndOfStreamThrows() throws {
        let (_, error) = try failure(after: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01], endOfStream: true)
        #expect(error?.message.hasPrefix("TLS handshake failed") == true)
    }

    @Test func oneConnectionsErrorDoesNotLeakIntoAnother() throws {
        let (_, first) = try failure(after: Array("GET / HTTP/1.1\r\n\r\n".utf8))
        #expect(first?.message.contains("http request") == true)
        let (_, second) = try failure(after: Array(repeating: 0xAB, count: 64))
        #expect(second?.message.contains("http request") == false)
        // And a healthy connection on the same thread is unaffected.
        let pair = try TLSPair(context: context, client: TLSClientForTesting())
        try pair.pump()
        #expect(pair.server.isHandshakeComplete)
    }
}
