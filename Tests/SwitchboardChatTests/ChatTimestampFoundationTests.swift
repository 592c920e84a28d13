import Foundation
import SwitchboardChat
import Testing

/// Cross-checks the hand-written calendar arithmetic (used by the HTTP API's
/// time parameters) against Foundation over a wide spread of days
/// (Foundation is fine in tests; the module itself avoids it).
@Suite struct ChatTimestampFoundationTests {
    @Test func agreesWithFoundation() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        // A fixed linear congruential generator keeps the sample reproducible.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<5_000 {
            let days = -25_567 + next(92_600)  // 1900 ... 2153
            let parts = calendar.dateComponents(
                [.year, .month, .day], from: Date(timeIntervalSince1970: TimeInterval(days * 86_400)))
            let civil = ChatTimestamp.civil(fromDays: days)
            #expect(civil.year == parts.year && civil.month == parts.month && civil.day == parts.day, "\(days)")
            #expect(ChatTimestamp.daysFromCivil(year: civil.year, month: civil.month, day: civil.day) == days)
            let monthStart = try #require(
                calendar.date(from: DateComponents(year: civil.year, month: civil.month, day: 1)))
            let length = try #require(calendar.range(of: .day, in: .month, for: monthStart)).count
            #expect(ChatTimestamp.daysInMonth(year: civil.year, month: civil.month) == length)
        }
    }
}
