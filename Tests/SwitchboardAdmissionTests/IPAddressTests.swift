import SwitchboardAdmission
import Testing

struct IPAddressTests {
    @Test func parsesIPv4() {
        let address = IPAddress(parsing: "192.0.2.1")
        #expect(address == IPAddress(ipv4: 0xC000_0201))
        #expect(address?.isIPv4 == true)
        #expect(address?.description == "192.0.2.1")
        for bad in ["", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "1..2.3", "1.2.3.4 ", "a.b.c.d", "1.2.3.-4"] {
            #expect(IPAddress(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func parsesIPv6() {
        #expect(IPAddress(parsing: "::") == IPAddress(high: 0, low: 0))
        #expect(IPAddress(parsing: "::1") == IPAddress(high: 0, low: 1))
        #expect(IPAddress(parsing: "2001:db8::1") == IPAddress(high: 0x2001_0db8_0000_0000, low: 1))
        #expect(IPAddress(parsing: "1::") == IPAddress(high: 0x0001_0000_0000_0000, low: 0))
        #expect(
            IPAddress(parsing: "1:2:3:4:5:6:7:8") == IPAddress(high: 0x0001_0002_0003_0004, low: 0x0005_0006_0007_0008))
        #expect(IPAddress(parsing: "::ffff:192.0.2.1") == IPAddress(parsing: "192.0.2.1"))
        #expect(IPAddress(parsing: "2001:DB8::A")?.description == "2001:db8::a")
        #expect(IPAddress(parsing: "2001:db8:0:0:1:0:0:1")?.description == "2001:db8::1:0:0:1")
        for bad in [
            ":", ":::", "1:", ":1", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::",
            "::1.2.3", "1.2.3.4::", "[::1]", "fe80::1%eth0",
        ] {
            #expect(IPAddress(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func limitKeyIsTheAddressForIPv4AndTheSlash64ForIPv6() {
        let v4 = IPAddress(parsing: "198.51.100.7")!
        #expect(v4.limitKey == v4)
        #expect(IPAddress(parsing: "2001:db8:1:2:aaaa::1")!.limitKey == IPAddress(parsing: "2001:db8:1:2::")!)
        #expect(
            IPAddress(parsing: "2001:db8:1:2:aaaa::1")!.limitKey == IPAddress(parsing: "2001:db8:1:2:bbbb::9")!.limitKey
        )
    }

    @Test func networks() {
        let loopback = IPNetwork(parsing: "127.0.0.0/8")!
        #expect(loopback.contains(IPAddress(parsing: "127.0.0.2")!))
        #expect(!loopback.contains(IPAddress(parsing: "128.0.0.1")!))
        #expect(!loopback.contains(IPAddress(parsing: "::1")!))
        #expect(loopback.description == "127.0.0.0/8")
        let host = IPNetwork(parsing: "10.1.2.3")!
        #expect(host.contains(IPAddress(parsing: "10.1.2.3")!))
        #expect(!host.contains(IPAddress(parsing: "10.1.2.4")!))
        let v6 = IPNetwork(parsing: "2001:db8::/32")!
        #expect(v6.contains(IPAddress(parsing: "2001:db8:ffff::1")!))
        #expect(!v6.contains(IPAddress(parsing: "2001:db9::1")!))
        #expect(IPNetwork(parsing: "0.0.0.0/0")!.contains(IPAddress(parsing: "203.0.113.9")!))
        #expect(IPNetwork(parsing: "::/0")!.contains(IPAddress(parsing: "2001:db8::1")!))
        for bad in ["10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "x/8", "10.0.0.0/8/8", ""] {
            #expect(IPNetwork(parsing: bad) == nil, "\(bad)")
        }
        #expect(IPNetworkSet.parse(["10.0.0.0/8", "nope"]).failureEntry == "nope")
    }
}

extension Result where Failure == InvalidNetwork {
    var failureEntry: String? {
        if case .failure(let error) = self { return error.entry }
        return nil
    }
}
