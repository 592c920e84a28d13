import SwitchboardAdmission
import Testing

@testable import SwitchboardServer

extension EmbeddedGateway {
    /// A client from `source`, as the kernel would name it.
    func client(from source: String) -> EmbeddedClient {
        client(from: IPAddress(parsing: source)!)
    }

    /// GET /healthz from `source` with `Connection: close`: the whole reply, as text.
    func healthz(from source: String, preamble: [UInt8] = [], headers: String = "") -> String {
        let client = client(from: source)
        client.send(preamble + Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\(headers)\r\n".utf8))
        return String(decoding: client.readToEnd(), as: UTF8.self)
    }
}

/// Clients behind a trusted proxy (docs/limits.md), named by a PROXY header
/// or by X-Forwarded-For and counted against the per-address limits,
/// in-process: the peer's address is given to the gateway as accept would
/// give it. (What the kernel reports and enforces stays in AddressLimitTests.)
@Suite struct TrustedProxyTests {
    private static let keepAliveHealthz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test func aTrustedProxyNamesTheClientByProxyProtocol() throws {
        let gateway = try EmbeddedGateway {
            $0.ipLimitExempt = []
            $0.trustedProxies = ["127.0.0.1"]
            $0.maxConnectionsPerIP = 1
            $0.connectionRatePerIP = 0
        }
        defer { gateway.stop() }
        let admission = gateway.context.admission

        // Version 1, the client's address held open by a keep-alive connection.
        let first = gateway.client(from: "127.0.0.1")
        first.send("PROXY TCP4 203.0.113.7 127.0.0.1 4000 80\r\n" + Self.keepAliveHealthz)
        #expect(first.readHead().hasPrefix("HTTP/1.1 200 OK"))
        #expect(admission.limiter.openConnections(try IPAddress(parsing: "203.0.113.7").unwrap()) == 1)
        // The same client again through the proxy: over its limit.
        let again = gateway.healthz(
            from: "127.0.0.1", preamble: Array("PROXY TCP4 203.0.113.7 127.0.0.1 4001 80\r\n".utf8))
        #expect(again.hasPrefix("HTTP/1.1 429 Too Many Requests\r\n"))
        // Another client through the same proxy, in version 2, sent in two pieces.
        let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]
        let v2 = signature + [0x21, 0x11, 0, 12, 203, 0, 113, 8, 127, 0, 0, 1, 0x0F, 0xA0, 0, 80]
        let split = gateway.client(from: "127.0.0.1")
        split.send(Array(v2[..<10]))
        split.send(Array(v2[10...]) + Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(String(decoding: split.readToEnd(), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
        // The proxy's own connections (no header, or LOCAL) are not counted against anyone.
        #expect(gateway.healthz(from: "127.0.0.1").hasPrefix("HTTP/1.1 200 OK"))
        #expect(gateway.healthz(from: "127.0.0.1").hasPrefix("HTTP/1.1 200 OK"))
        // A broken header from the proxy ends the connection.
        let broken = gateway.healthz(from: "127.0.0.1", preamble: Array("PROXY TCP4 nonsense\r\n".utf8))
        #expect(broken.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        // From an address that is not a trusted proxy the header is not believed: it is not HTTP.
        let untrusted = gateway.healthz(
            from: "127.0.0.2", preamble: Array("PROXY TCP4 198.51.100.1 127.0.0.1 1 80\r\n".utf8))
        #expect(untrusted.hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
        #expect(admission.limiter.openConnections(try IPAddress(parsing: "198.51.100.1").unwrap()) == 0)
        #expect(admission.refused(.perIPConnections) == 1)
    }

    @Test func aTrustedProxyNamesTheClientByXForwardedFor() throws {
        let gateway = try EmbeddedGateway {
            $0.ipLimitExempt = []
            $0.trustedProxies = ["127.0.0.1", "10.0.0.0/8"]
            $0.maxConnectionsPerIP = 1
            $0.connectionRatePerIP = 0
        }
        defer { gateway.stop() }
        let held = gateway.client(from: "127.0.0.1")
        held.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 6.6.6.6, 198.51.100.9, 10.1.1.1\r\n\r\n")
        #expect(held.readHead().hasPrefix("HTTP/1.1 200 OK"))
        #expect(
            gateway.context.admission.limiter.openConnections(try IPAddress(parsing: "198.51.100.9").unwrap())
                == 1)
        let again = gateway.healthz(from: "127.0.0.1", headers: "X-Forwarded-For: 198.51.100.9\r\n")
        #expect(again.hasPrefix("HTTP/1.1 429 Too Many Requests\r\n"))
        // The entry the client wrote itself (6.6.6.6) is not whom it is counted as.
        let spoofed = gateway.healthz(from: "127.0.0.1", headers: "X-Forwarded-For: 198.51.100.10, 198.51.100.9\r\n")
        #expect(spoofed.hasPrefix("HTTP/1.1 429 Too Many Requests\r\n"))
        #expect(
            gateway.healthz(
                from: "127.0.0.1", headers: "X-Forwarded-For: 198.51.100.10\r\n"
            ).hasPrefix("HTTP/1.1 200 OK"))
        // From an untrusted peer the header is ignored: the peer itself is counted.
        let direct = gateway.client(from: "127.0.0.2")
        direct.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.77\r\n\r\n")
        #expect(direct.readHead().hasPrefix("HTTP/1.1 200 OK"))
        let admission = gateway.context.admission
        #expect(admission.limiter.openConnections(try IPAddress(parsing: "127.0.0.2").unwrap()) == 1)
        #expect(admission.limiter.openConnections(try IPAddress(parsing: "198.51.100.77").unwrap()) == 0)
    }
}
