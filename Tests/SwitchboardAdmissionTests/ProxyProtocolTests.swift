import SwitchboardAdmission
import Testing

struct ProxyProtocolTests {
    func parse(_ text: String) -> ProxyProtocol.Result { ProxyProtocol.parse(Array(text.utf8)) }

    @Test func version1() {
        let line = "PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n"
        #expect(
            parse(line + "GET / HTTP/1.1\r\n")
                == .header(source: IPAddress(parsing: "192.0.2.1"), length: line.utf8.count))
        #expect(
            parse("PROXY TCP6 2001:db8::1 2001:db8::2 1 65535\r\n")
                == .header(source: IPAddress(parsing: "2001:db8::1"), length: 44))
        #expect(parse("PROXY UNKNOWN\r\n") == .header(source: nil, length: 15))
        #expect(parse("PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n") == .header(source: nil, length: 35))
    }

    @Test func version1InPieces() {
        let line = Array("PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\r\n".utf8)
        for cut in 0..<line.count {
            #expect(ProxyProtocol.parse(Array(line[..<cut])) == .needMore, "cut at \(cut)")
        }
        #expect(ProxyProtocol.parse(line) == .header(source: IPAddress(parsing: "192.0.2.1"), length: line.count))
    }

    @Test func version1Refusals() {
        for bad in [
            "PROXY TCP4 192.0.2.1 198.51.100.1 56324 443\n",  // no CR
            "PROXY TCP4 192.0.2.1 198.51.100.1 56324\r\n",
            "PROXY TCP4 2001:db8::1 198.51.100.1 1 2\r\n",  // family mismatch
            "PROXY TCP6 192.0.2.1 198.51.100.1 1 2\r\n",
            "PROXY TCP4 192.0.2.1 198.51.100.1 65536 443\r\n",
            "PROXY TCP4 192.0.2.1 198.51.100.1 056 443\r\n",
            "PROXY TCP4  192.0.2.1 198.51.100.1 1 2\r\n",  // two spaces
            "PROXY UDP4 192.0.2.1 198.51.100.1 1 2\r\n",
            "PROXY \r\n",
            "PROXY " + String(repeating: "x", count: 120),  // no end within 107 bytes
        ] {
            #expect(parse(bad) == .invalid, "\(bad)")
        }
    }

    @Test func ordinaryRequestsAreNotHeaders() {
        #expect(parse("GET / HTTP/1.1\r\n") == .absent)
        #expect(parse("PROXZ") == .absent)
        #expect(parse("POST /") == .absent)
        #expect(parse("P") == .needMore)
        #expect(ProxyProtocol.parse([UInt8]()) == .needMore)
        #expect(ProxyProtocol.parse([0x0D, 0x0A, 0x0D, 0x0A, 0x01]) == .absent)
    }

    static let signature: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A]

    static func v2(command: UInt8, family: UInt8, block: [UInt8]) -> [UInt8] {
        signature + [0x20 | command, family, UInt8(block.count >> 8), UInt8(block.count & 0xff)] + block
    }

    @Test func version2() {
        let v4 = Self.v2(command: 1, family: 0x11, block: [192, 0, 2, 1, 198, 51, 100, 1, 0xDC, 0x04, 0x01, 0xBB])
        #expect(
            ProxyProtocol.parse(v4 + Array("GET".utf8)) == .header(source: IPAddress(parsing: "192.0.2.1"), length: 28))
        let six = IPAddress(parsing: "2001:db8::7")!
        var block: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) {
            block.append(UInt8(truncatingIfNeeded: six.high >> UInt64(shift)))
        }
        for shift in stride(from: 56, through: 0, by: -8) {
            block.append(UInt8(truncatingIfNeeded: six.low >> UInt64(shift)))
        }
        block += [UInt8](repeating: 0, count: 16) + [0, 1, 0, 2]
        block += [0x04, 0x00, 0x02, 0xAA, 0xBB]  // a TLV, skipped
        let v6 = Self.v2(command: 1, family: 0x21, block: block)
        #expect(ProxyProtocol.parse(v6) == .header(source: six, length: v6.count))
        let local = Self.v2(command: 0, family: 0x00, block: [])
        #expect(ProxyProtocol.parse(local) == .header(source: nil, length: 16))
        for cut in 0..<v4.count { #expect(ProxyProtocol.parse(Array(v4[..<cut])) == .needMore, "cut at \(cut)") }
    }

    @Test func version2Refusals() {
        #expect(
            ProxyProtocol.parse(Self.signature + [0x11, 0x11, 0, 12] + [UInt8](repeating: 0, count: 12)) == .invalid)
        #expect(
            ProxyProtocol.parse(Self.v2(command: 2, family: 0x11, block: [UInt8](repeating: 0, count: 12))) == .invalid)
        #expect(ProxyProtocol.parse(Self.v2(command: 1, family: 0x11, block: [1, 2, 3])) == .invalid)
        #expect(
            ProxyProtocol.parse(Self.v2(command: 1, family: 0x21, block: [UInt8](repeating: 0, count: 12))) == .invalid)
        #expect(
            ProxyProtocol.parse(Self.v2(command: 1, family: 0x41, block: [UInt8](repeating: 0, count: 12))) == .invalid)
        #expect(ProxyProtocol.parse(Self.signature + [0x21, 0x11, 0xFF, 0xFF]) == .invalid)  // longer than we take
    }
}

struct ForwardedForTests {
    let proxies = IPNetworkSet([IPNetwork(parsing: "10.0.0.0/8")!, IPNetwork(parsing: "2001:db8::/32")!])

    @Test func theRightmostUntrustedEntryIsTheClient() {
        #expect(ForwardedFor.client(["203.0.113.5"], trusted: proxies) == IPAddress(parsing: "203.0.113.5"))
        // The client wrote the first entry itself: it is not believed.
        #expect(
            ForwardedFor.client(["1.1.1.1, 203.0.113.5, 10.0.0.2"], trusted: proxies)
                == IPAddress(parsing: "203.0.113.5"))
        #expect(
            ForwardedFor.client(["1.1.1.1", "203.0.113.5,10.0.0.2"], trusted: proxies)
                == IPAddress(parsing: "203.0.113.5"))
        #expect(ForwardedFor.client(["10.0.0.9, 10.0.0.2"], trusted: proxies) == IPAddress(parsing: "10.0.0.9"))
        #expect(
            ForwardedFor.client(["[2001:db9::1]:4711, 203.0.113.5:80"], trusted: proxies)
                == IPAddress(parsing: "203.0.113.5"))
        #expect(ForwardedFor.client(["2001:db9::1"], trusted: proxies) == IPAddress(parsing: "2001:db9::1"))
    }

    @Test func garbageStopsTheWalk() {
        #expect(ForwardedFor.client(["unknown"], trusted: proxies) == nil)
        #expect(ForwardedFor.client(["203.0.113.5, , 10.0.0.1"], trusted: proxies) == nil)
        #expect(ForwardedFor.client(["203.0.113.5, nonsense"], trusted: proxies) == nil)
        #expect(ForwardedFor.client([""], trusted: proxies) == nil)
        // An untrusted address to the right of garbage is still found first.
        #expect(ForwardedFor.client(["nonsense, 203.0.113.5"], trusted: proxies) == IPAddress(parsing: "203.0.113.5"))
    }
}
