import SwitchboardTLS
import SwitchboardTLSTestSupport
import Testing

@Suite struct TLSHandshakeTests {
    let certificates: TestCertificates
    let context: TLSContext

    init() throws {
        certificates = try TestCertificates()
        context = try certificates.makeContext()
    }

    @Test func defaultHandshakeIsTLS13WithHTTP11() throws {
        let client = try TLSClientForTesting(trustedCertificatePath: certificates.certificatePath)
        let pair = try TLSPair(context: context, client: client)
        #expect(!pair.server.isHandshakeComplete)
        #expect(pair.server.negotiatedVersion == nil)
        try pair.pump()
        #expect(pair.server.isHandshakeComplete)
        #expect(client.isHandshakeComplete)
        #expect(pair.server.negotiatedVersion == "TLSv1.3")
        #expect(client.negotiatedVersion == "TLSv1.3")
        #expect(pair.server.negotiatedALPN == "http/1.1")
        #expect(client.negotiatedALPN == "http/1.1")
        // No session tickets: once the handshake is over, nothing is left to send.
        #expect(!pair.server.hasPendingCiphertext)
    }

    @Test func clientCappedAtTLS12GetsTLS12() throws {
        let client = try TLSClientForTesting(
            maximumVersion: "TLSv1.2", trustedCertificatePath: certificates.certificatePath)
        let pair = try TLSPair(context: context, client: client)
        try pair.pump()
        #expect(pair.server.negotiatedVersion == "TLSv1.2")
        #expect(client.negotiatedVersion == "TLSv1.2")
        #expect(pair.server.negotiatedALPN == "http/1.1")
    }

    @Test func serverPreferenceWinsAmongOfferedProtocols() throws {
        let client = try TLSClientForTesting(alpnProtocols: ["h2", "http/1.1", "spdy/3"])
        let pair = try TLSPair(context: context, client: client)
        try pair.pump()
        #expect(pair.server.negotiatedALPN == "http/1.1")
        #expect(client.negotiatedALPN == "http/1.1")
    }

    @Test func clientWithoutALPNIsServedWithoutIt() throws {
        let client = try TLSClientForTesting(alpnProtocols: [])
        let pair = try TLSPair(context: context, client: client)
        try pair.pump()
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.server.negotiatedALPN == nil)
    }

    @Test func clientOfferingOnlyOtherProtocolsGetsNoApplicationProtocol() throws {
        let client = try TLSClientForTesting(alpnProtocols: ["h2"])
        let pair = try TLSPair(context: context, client: client)
        let serverError = #expect(throws: TLSError.self) { try pair.pump() }
        #expect(serverError?.message.hasPrefix("TLS handshake failed") == true)
        #expect(!pair.server.isHandshakeComplete)
        // The fatal alert was queued for the client; delivering it fails the client's handshake too.
        #expect(pair.server.hasPendingCiphertext)
        let clientError = #expect(throws: TLSError.self) { try pair.pump() }
        #expect(clientError?.message.contains("no application protocol") == true)
    }

    @Test func contextWithoutALPNIgnoresWhatClientsOffer() throws {
        let context = try certificates.makeContext(alpnProtocols: [])
        let pair = try TLSPair(context: context, client: TLSClientForTesting(alpnProtocols: ["h2"]))
        try pair.pump()
        #expect(pair.server.isHandshakeComplete)
        #expect(pair.server.negotiatedALPN == nil)
    }

    @Test(arguments: ["TLSv1.2", "TLSv1.3"])
    func oneByteAtATimeStillCompletes(version: String) throws {
        let client = try TLSClientForTesting(maximumVersion: version)
        let pair = try TLSPair(context: context, client: client)
        try pair.pump(chunkSize: 1)
        #expect(pair.server.negotiatedVersion == version)
        #expect(client.isHandshakeComplete)
        _ = try client.write(Array("hello".utf8))
        try pair.pump(chunkSize: 1)
        #expect(pair.serverReceived == Array("hello".utf8))
    }

    @Test func wrongHostNameFailsClientVerification() throws {
        let client = try TLSClientForTesting(
            trustedCertificatePath: certificates.certificatePath, serverName: "example.org")
        let pair = try TLSPair(context: context, client: client)
        let error = #expect(throws: TLSError.self) { try pair.pump() }
        #expect(error?.message.contains("certificate verify failed") == true)
        #expect(!client.isHandshakeComplete)
    }

    @Test func manyConnectionsShareOneContext() throws {
        for _ in 0..<20 {
            let pair = try TLSPair(context: context, client: TLSClientForTesting())
            try pair.pump()
            #expect(pair.server.isHandshakeComplete)
        }
    }
}
