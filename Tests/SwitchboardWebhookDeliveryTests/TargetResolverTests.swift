import SwitchboardWebhookDelivery
import SwitchboardWebhooks
import Testing

/// The API's creation-time check (names that need no outside DNS: localhost and literals).
@Suite struct TargetResolverTests {
    @Test func refusesAHostThatResolvesToLoopbackUnlessAllowed() throws {
        #expect(throws: TargetCheckError.refused(TargetAddress(parsing: "127.0.0.1")!)) {
            try TargetResolver.check(url: "http://localhost:8080/hook", allowPrivate: false)
        }
        let addresses = try TargetResolver.check(url: "http://localhost:8080/hook", allowPrivate: true)
        #expect(addresses.contains(TargetAddress(parsing: "127.0.0.1")!))
    }

    @Test func judgesLiteralAddressesWithoutDNS() throws {
        #expect(
            try TargetResolver.check(url: "https://93.184.216.34/", allowPrivate: false).map(\.description) == [
                "93.184.216.34"
            ])
        do {
            try TargetResolver.check(url: "https://10.0.0.1/hook", allowPrivate: false)
            Issue.record("10.0.0.1 was accepted")
        } catch {
            #expect(error.description == "target resolves to a private address (10.0.0.1)")
        }
        #expect(throws: TargetCheckError.refused(TargetAddress(parsing: "fe80::1")!)) {
            try TargetResolver.check(url: "https://[fe80::1]/", allowPrivate: false)
        }
        // Multicast is no receiver, allowed private targets or not.
        #expect(throws: TargetCheckError.refused(TargetAddress(parsing: "224.0.0.1")!)) {
            try TargetResolver.check(url: "http://224.0.0.1/", allowPrivate: true)
        }
    }

    @Test func passesURLErrorsOn() {
        do {
            try TargetResolver.check(url: "ftp://example.com/", allowPrivate: false)
            Issue.record("ftp was accepted")
        } catch {
            #expect(error.description == "url must start with http:// or https://")
        }
    }
}
