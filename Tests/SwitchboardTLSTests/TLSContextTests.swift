import SwitchboardTLS
import SwitchboardTLSTestSupport
import Testing

@Suite struct TLSContextTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates()
    }

    @Test func missingCertificateNamesTheFile() throws {
        let path = certificates.directory.appendingPathComponent("absent-cert.pem").path
        let configuration = TLSConfiguration(certificatePath: path, privateKeyPath: certificates.keyPath)
        let error = #expect(throws: TLSError.self) { try TLSContext(configuration: configuration) }
        #expect(error?.message.hasPrefix("cannot load certificate chain \(path): ") == true)
        #expect(error?.description.contains("No such file or directory") == true)
    }

    @Test func missingKeyNamesTheFile() throws {
        let path = certificates.directory.appendingPathComponent("absent-key.pem").path
        let configuration = TLSConfiguration(certificatePath: certificates.certificatePath, privateKeyPath: path)
        let error = #expect(throws: TLSError.self) { try TLSContext(configuration: configuration) }
        #expect(
            error?.message.hasPrefix(
                "cannot load private key \(path) for certificate \(certificates.certificatePath): ") == true)
    }

    @Test func keyThatIsNotPEMNamesTheFile() throws {
        // The certificate file holds no private key.
        let configuration = TLSConfiguration(
            certificatePath: certificates.certificatePath, privateKeyPath: certificates.certificatePath)
        let error = #expect(throws: TLSError.self) { try TLSContext(configuration: configuration) }
        #expect(error?.message.hasPrefix("cannot load private key \(certificates.certificatePath)") == true)
    }

    @Test func mismatchedKeyNamesBothFiles() throws {
        let configuration = TLSConfiguration(
            certificatePath: certificates.certificatePath, privateKeyPath: certificates.otherKeyPath)
        let error = #expect(throws: TLSError.self) { try TLSContext(configuration: configuration) }
        let message = try #require(error?.message)
        #expect(message.contains(certificates.otherKeyPath))
        #expect(message.contains(certificates.certificatePath))
        #expect(message.hasPrefix("cannot load private key \(certificates.otherKeyPath)"))
        #expect(message.contains("key values mismatch"))
    }

    @Test(arguments: ["", String(repeating: "x", count: 256)])
    func invalidALPNNameIsRejected(name: String) throws {
        let error = #expect(throws: TLSError.self) {
            try TLSContext(configuration: certificates.configuration(alpnProtocols: [name]))
        }
        #expect(error?.message.hasPrefix("invalid ALPN protocol name") == true)
    }

    @Test func failedContextLeavesNoErrorForTheNextOperation() throws {
        let bad = TLSConfiguration(certificatePath: "/nonexistent/cert.pem", privateKeyPath: certificates.keyPath)
        #expect(throws: TLSError.self) { try TLSContext(configuration: bad) }
        // If the queue had kept the failure, it would surface in this unrelated handshake's errors.
        let context = try certificates.makeContext()
        let pair = try TLSPair(context: context, client: TLSClientForTesting())
        try pair.pump()
        #expect(pair.server.isHandshakeComplete)
    }
}
