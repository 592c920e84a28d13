import SwitchboardWebhooks
import Testing

@Suite struct TargetAddressTests {
    func kind(_ text: String) -> TargetAddress.Kind? { TargetAddress(parsing: text)?.kind }

    @Test func classifiesIPv4() {
        let expected: [(String, TargetAddress.Kind)] = [
            ("8.8.8.8", .publicAddress), ("93.184.216.34", .publicAddress), ("1.1.1.1", .publicAddress),
            ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
            ("10.0.0.1", .privateNetwork), ("10.255.255.255", .privateNetwork),
            ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
            ("172.15.255.255", .publicAddress), ("172.32.0.0", .publicAddress),
            ("192.168.1.1", .privateNetwork), ("192.169.0.1", .publicAddress),
            ("100.64.0.1", .privateNetwork), ("100.127.255.255", .privateNetwork),
            ("100.63.255.255", .publicAddress), ("100.128.0.0", .publicAddress),
            ("169.254.169.254", .linkLocal), ("169.253.0.1", .publicAddress),
            ("224.0.0.1", .multicast), ("239.255.255.250", .multicast),
            ("0.0.0.0", .reserved), ("0.1.2.3", .reserved), ("240.0.0.1", .reserved),
            ("255.255.255.255", .reserved), ("223.255.255.255", .publicAddress),
        ]
        for (text, kind) in expected { #expect(self.kind(text) == kind, "\(text)") }
    }

    @Test func classifiesIPv6() {
        let expected: [(String, TargetAddress.Kind)] = [
            ("2606:4700:4700::1111", .publicAddress), ("2001:db8::1", .publicAddress),
            ("::1", .loopback), ("::", .reserved),
            ("fc00::1", .privateNetwork), ("fd12:3456::1", .privateNetwork), ("fec0::1", .privateNetwork),
            ("fe80::1", .linkLocal), ("febf:ffff::1", .linkLocal),
            ("ff02::1", .multicast), ("ff0e::1", .multicast),
            // IPv6 that carries IPv4: what the IPv4 address is.
            ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .privateNetwork), ("::ffff:8.8.8.8", .publicAddress),
            ("::ffff:7f00:1", .loopback), ("::127.0.0.1", .loopback), ("::10.0.0.1", .privateNetwork),
            ("::0.0.0.2", .reserved), ("::8.8.8.8", .publicAddress),
            ("64:ff9b::127.0.0.1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::8.8.8.8", .publicAddress),
            ("2002:c0a8:0101::1", .privateNetwork), ("2002:0808:0808::1", .publicAddress),
        ]
        for (text, kind) in expected { #expect(self.kind(text) == kind, "\(text)") }
    }

    @Test func allowsPrivateKindsOnlyWhenAskedAndNeverMulticastOrReserved() {
        let table: [(String, Bool, Bool)] = [
            ("8.8.8.8", true, true), ("127.0.0.1", false, true), ("10.0.0.1", false, true),
            ("169.254.169.254", false, true), ("::1", false, true), ("::ffff:192.168.0.1", false, true),
            ("224.0.0.1", false, false), ("0.0.0.0", false, false), ("::", false, false), ("ff02::1", false, false),
        ]
        for (text, strict, relaxed) in table {
            let address = TargetAddress(parsing: text)!
            #expect(address.isAllowed(allowPrivate: false) == strict, "\(text)")
            #expect(address.isAllowed(allowPrivate: true) == relaxed, "\(text)")
        }
    }

    @Test func takesRawBytesOfEitherFamilyOnly() {
        #expect(TargetAddress(bytes: [10, 0, 0, 1])?.kind == .privateNetwork)
        #expect(TargetAddress(bytes: [UInt8](repeating: 0, count: 15) + [1])?.kind == .loopback)
        #expect(TargetAddress(bytes: [1, 2, 3]) == nil)
        #expect(TargetAddress(bytes: []) == nil)
    }

    @Test func parsesOnlyPlainSpellings() {
        for text in [
            "127.1", "0x7f.0.0.1", "017.0.0.1", "127.0.0.01", "2130706433", "1.2.3.4.5", "256.0.0.1", "1.2.3.",
            "", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1::2::3", ":::", "12345::", "fe80::1%eth0", "[::1]",
            "::1.2.3", "1.2.3.4::", "::ffff:1.2.3.4:5", "g::1", "１::1",
        ] {
            #expect(TargetAddress(parsing: text) == nil, "\(text)")
        }
        #expect(TargetAddress(parsing: "1:2:3:4:5:6:7::")?.bytes.suffix(2) == [0, 0])
        #expect(TargetAddress(parsing: "1:2:3:4:5:6:1.2.3.4")?.bytes.suffix(4) == [1, 2, 3, 4])
    }

    @Test func printsAsRFC5952() {
        let cases = [
            ("10.0.0.1", "10.0.0.1"), ("::1", "::1"), ("::", "::"), ("FE80:0:0:0:0:0:0:1", "fe80::1"),
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("2001:0:0:1:0:0:0:1", "2001:0:0:1::1"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"), ("::ffff:0a00:0001", "::ffff:10.0.0.1"),
            ("1::", "1::"),
        ]
        for (input, printed) in cases { #expect(TargetAddress(parsing: input)?.description == printed, "\(input)") }
    }
}
