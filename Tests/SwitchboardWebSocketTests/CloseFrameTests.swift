import SwitchboardWebSocket
import Testing

struct CloseFrameTests {
    /// Autobahn 7.7.x (valid) plus the IANA-registered 1012-1014.
    @Test(
        arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999]
            as [UInt16])
    func validCodes(_ code: UInt16) {
        #expect(CloseFrame.isValidReceivedCode(code))
    }

    /// Autobahn 7.9.x (invalid) plus 1015 (TLS failure, local only) and codes past 4999.
    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] as [UInt16])
    func invalidCodes(_ code: UInt16) {
        #expect(!CloseFrame.isValidReceivedCode(code))
    }

    @Test func parsesBodies() throws {
        #expect(try ([] as [UInt8]).withUnsafeBytes { try CloseFrame.parse($0) } == (nil, ""))
        let body: [UInt8] = [0x03, 0xE8] + Array("bye".utf8)
        let parsed = try body.withUnsafeBytes { try CloseFrame.parse($0) }
        #expect(parsed.code == 1000)
        #expect(parsed.reason == "bye")
        #expect(throws: WebSocketError(closeCode: 1002, reason: "close frame with a 1-byte body")) {
            try ([0x03] as [UInt8]).withUnsafeBytes { try CloseFrame.parse($0) }
        }
        #expect(throws: WebSocketError(closeCode: 1007, reason: "close reason is not UTF-8")) {
            try ([0x03, 0xE8, 0xFF] as [UInt8]).withUnsafeBytes { try CloseFrame.parse($0) }
        }
    }
}
