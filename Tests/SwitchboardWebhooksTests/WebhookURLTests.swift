import SwitchboardWebhooks
import Testing

@Suite struct WebhookURLTests {
    @Test func readsHostPortAndScheme() throws {
        let cases: [(String, WebhookURL.Scheme, String, Int, Bool)] = [
            ("https://hooks.example.com/switchboard?token=abc", .https, "hooks.example.com", 443, false),
            ("http://Example.COM", .http, "example.com", 80, false),
            ("HTTPS://api.example.com:8443/in", .https, "api.example.com", 8443, false),
            ("http://127.0.0.1:9000/hook", .http, "127.0.0.1", 9000, true),
            ("https://[2001:DB8::1]/x", .https, "2001:db8::1", 443, true),
            ("http://[::1]:8080", .http, "::1", 8080, true),
            ("https://my_host.internal-1.example/", .https, "my_host.internal-1.example", 443, false),
            ("https://a.b.c.d.example/p/a/t/h.json?q=1&r=%20", .https, "a.b.c.d.example", 443, false),
            ("http://h:65535", .http, "h", 65535, false),
        ]
        for (text, scheme, host, port, literal) in cases {
            let url = try WebhookURL(parsing: text)
            #expect(url.scheme == scheme, "\(text)")
            #expect(url.host == host, "\(text)")
            #expect(url.port == port, "\(text)")
            #expect(url.isLiteralAddress == literal, "\(text)")
            #expect(url.text == text)
        }
        #expect(try WebhookURL(parsing: "http://10.1.2.3/").literalAddress?.kind == .privateNetwork)
    }

    @Test func refusesWithAReasonAnAPICanShow() {
        let cases: [(String, String)] = [
            ("ftp://example.com/", "must start with http:// or https://"),
            ("example.com/hook", "must start with http:// or https://"),
            ("javascript://example.com", "must start with http:// or https://"),
            ("https://user:pass@example.com/", "has credentials"),
            ("https://example.com@evil.example/", "has credentials"),
            ("https://example.com/#top", "has a fragment"),
            ("https://example.com/a b", "has a space or a control character"),
            ("https://example.com/\n", "has a space or a control character"),
            ("https://exämple.com/", "has a non-ASCII character"),
            ("https://", "has no host"),
            ("https:///path", "has no host"),
            ("https://:443/", "has no host"),
            ("https://example.com:0/", "has an invalid port"),
            ("https://example.com:65536/", "has an invalid port"),
            ("https://example.com:/", "has an invalid port"),
            ("https://example.com:+80/", "has an invalid port"),
            ("https://example.com:80:80/", "has an invalid port"),
            ("https://[::1/", "has an unclosed [IPv6] host"),
            ("https://[fe80::1%25eth0]/", "has an invalid IPv6 address"),
            ("https://[10.0.0.1]/", "has an invalid IPv6 address"),
            ("https://[::1]x/", "has text after its [IPv6] host"),
            ("https://exa%6dple.com/", "has an invalid host name"),
            ("https://example..com/", "has an invalid host name"),
            ("https://example.com./", "has an invalid host name"),
            ("https://ex\\ample.com/", "has an invalid host name"),
            ("https://" + String(repeating: "a", count: 64) + ".com/", "has an invalid host name"),
            ("http://127.1/", "has a host"),
            ("http://2130706433/", "has a host"),
            ("http://0x7f.0.0.1/", "has a host"),
            ("http://017.0.0.1/", "has a host"),
            ("http://example.0x10/", "has a host"),
            ("https://example.com/" + String(repeating: "a", count: 2030), "is longer than 2048 bytes"),
        ]
        for (text, reason) in cases {
            do {
                _ = try WebhookURL(parsing: text)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.description.hasPrefix("url " + reason), "\(text): \(error)")
            }
        }
    }

    @Test func takesAURLOfExactlyTheLimit() throws {
        let prefix = "https://example.com/"
        let text = prefix + String(repeating: "a", count: WebhookURL.maximumBytes - prefix.utf8.count)
        #expect(try WebhookURL(parsing: text).host == "example.com")
    }
}
