import Foundation
import SwitchboardChat
import Testing

/// Cross-checks the hand-written calendar arithmetic against Foundation over a wide spread of
/// dates and offsets (Foundation is fine in tests; the module itself avoids it).
@Suite struct ChatTimestampFoundationTests {
    @Test func agreesWithFoundation() throws {
        let utc = try #require(TimeZone(secondsFromGMT: 0))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        // A fixed linear congruential generator keeps the sample reproducible.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<5_000 {
            let seconds = -2_208_988_800 + next(8_000_000_000)  // 1900 ... 2153
            let offset = (next(2) == 0 ? 1 : -1) * (next(15) * 3600 + [0, 1800, 2700][next(3)])
            let micros = next(1_000_000)
            let local = Date(timeIntervalSince1970: TimeInterval(seconds + offset))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: local)
            let magnitude = abs(offset)
            let postgres = String(
                format: "%04d-%02d-%02d %02d:%02d:%02d.%06d%@%02d:%02d", parts.year!, parts.month!, parts.day!,
                parts.hour!, parts.minute!, parts.second!, micros, offset < 0 ? "-" : "+", magnitude / 3600,
                magnitude / 60 % 60)
            let instant = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds))
            )
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", instant.year!, instant.month!, instant.day!,
                instant.hour!, instant.minute!, instant.second!, micros / 1000)
            #expect(ChatTimestamp.rfc3339(fromPostgres: postgres) == expected, "\(postgres)")
        }
    }
}
