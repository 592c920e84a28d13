import SwitchboardWebSocket
import Testing

@Suite struct AllowedOriginsTests {
    @Test func noEntriesAllowEveryOrigin() {
        #expect(AllowedOrigins([]).allows("https://anything.example"))
    }

    @Test func exactOriginsCompareWithoutCase() {
        let allowed = AllowedOrigins(["https://Shop.example"])
        #expect(allowed.allows("https://shop.example"))
        #expect(!allowed.allows("https://shop.example:8443"))
        #expect(!allowed.allows("http://shop.example"))
    }

    @Test func aStarPortAllowsEveryPortOfThatHostOnly() {
        let allowed = AllowedOrigins(["http://localhost:*", "http://127.0.0.1:*"])
        #expect(allowed.allows("http://localhost:8080") && allowed.allows("http://127.0.0.1:51234"))
        #expect(!allowed.allows("http://localhost"), "no port given")
        #expect(!allowed.allows("http://localhost:80x"))
        #expect(!allowed.allows("http://localhost.evil.example:8080"))
        #expect(!allowed.allows("https://localhost:8080"), "another scheme")
    }
}
