import SwitchboardNATS
import Testing

@Suite struct NATSAddressTests {
    @Test func hostAndPort() throws {
        let address = try NATSAddress(parsing: "nats://127.0.0.1:4333")
        #expect(address.host == "127.0.0.1")
        #expect(address.port == 4333)
    }

    @Test func defaultPortSchemeCaseAndTrailingSlash() throws {
        #expect(try NATSAddress(parsing: "nats://10.1.2.3").port == 4222)
        #expect(try NATSAddress(parsing: "NATS://localhost:5000/").host == "localhost")
        #expect(try NATSAddress(parsing: "localhost").port == 4222)
    }

    @Test(arguments: [
        "", "nats://", "nats://:4222", "tls://127.0.0.1:4222", "http://127.0.0.1", "nats://example.com:4222",
        "nats://user:pass@127.0.0.1:4222", "nats://127.0.0.1:4222/path", "nats://127.0.0.1:0",
        "nats://127.0.0.1:65536", "nats://127.0.0.1:port", "nats://256.0.0.1", "nats://1.2.3", "nats://[::1]:4222",
        "nats://1.2.3.4.5", "nats://+1.2.3.4",
    ])
    func refused(_ url: String) {
        do {
            let address = try NATSAddress(parsing: url)
            Issue.record("'\(url)' was accepted as \(address)")
        } catch {
            #expect(error.kind == .invalidAddress)
            #expect(error.description.contains("'\(url)'"))
        }
    }
}
