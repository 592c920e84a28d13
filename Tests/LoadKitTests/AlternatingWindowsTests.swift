import Testing

@testable import LoadKit

@Suite("AlternatingWindows")
struct AlternatingWindowsTests {
    /// Wall clock = monotonic + 1,000 s here, so wall-clock windows of 5 s
    /// begin at monotonic instants -1,000 s + 5k s.
    private let windows = AlternatingWindows(windowSeconds: 5, realtimeOffset: 1_000_000_000_000)

    private func side(atMonotonicSeconds seconds: Double) -> AlternatingWindows.Side? {
        windows.side(ofMonotonic: UInt64(seconds * 1e9))
    }

    @Test("a send counts for the wall-clock window it was scheduled in, the sides going A B B A")
    func sidesTakeTurnsInPairsOfPairs() {
        // Wall clock 1,002 s: window 200, 2 s into it; windows 200-203 are A B B A.
        #expect(side(atMonotonicSeconds: 2) == .a)
        #expect(side(atMonotonicSeconds: 7) == .b)
        #expect(side(atMonotonicSeconds: 12) == .b)
        #expect(side(atMonotonicSeconds: 17) == .a)
        #expect(side(atMonotonicSeconds: 22) == .a)
        #expect(side(atMonotonicSeconds: 27) == .b)
        #expect(side(atMonotonicSeconds: 9.999) == .b)
    }

    @Test("a steady drift over the run, or anything with the period of two windows, favours neither side")
    func driftAndPeriodWeighAlike() {
        var drift: [AlternatingWindows.Side: Double] = [:]
        var count: [AlternatingWindows.Side: Int] = [:]
        var firstOfTwo: [AlternatingWindows.Side: Int] = [:]
        for window in 0..<400 {
            let seconds = Double(window) * 5 + 2.5
            guard let side = side(atMonotonicSeconds: seconds) else {
                Issue.record("mid-window instant counted for no side")
                continue
            }
            drift[side, default: 0] += seconds
            count[side, default: 0] += 1
            // Something every 10 s (two windows), say the harness's own reporting.
            if window % 2 == 0 { firstOfTwo[side, default: 0] += 1 }
        }
        #expect(count[.a] == 200 && count[.b] == 200)
        #expect(drift[.a] == drift[.b])
        #expect(firstOfTwo[.a] == 100 && firstOfTwo[.b] == 100)
    }

    @Test("the first 250 ms of every window count for neither side")
    func settlingTimeIsLeftOut() {
        #expect(side(atMonotonicSeconds: 5) == nil)
        #expect(side(atMonotonicSeconds: 5.249) == nil)
        #expect(side(atMonotonicSeconds: 5.251) == .b)
        #expect(side(atMonotonicSeconds: 10.1) == nil)
        #expect(side(atMonotonicSeconds: 10.251) == .b)
        #expect(side(atMonotonicSeconds: 15.251) == .a)
    }

    @Test("--alternate needs a traffic scenario, a window of a second or more, and room for both sides")
    func option() throws {
        let options = try LoadOptions(
            arguments: ["fanout", "--jwt-secret", "s", "--seconds", "60", "--alternate", "5"])
        #expect(options.alternateSeconds == 5)
        #expect(options.displayed.contains { $0.name == "alternate" && $0.value == "5.0" })
        #expect(
            !(try LoadOptions(arguments: ["fanout", "--jwt-secret", "s"])).displayed.contains { $0.name == "alternate" }
        )
        for arguments in [
            ["idle", "--jwt-secret", "s", "--alternate", "5"],
            ["fanout", "--jwt-secret", "s", "--seconds", "60", "--alternate", "0.5"],
            ["fanout", "--jwt-secret", "s", "--seconds", "8", "--alternate", "5"],
        ] {
            #expect(throws: LoadOptions.UsageError.self) { try LoadOptions(arguments: arguments) }
        }
    }

    @Test("a longer settling time leaves out more of each window's start, for both sides")
    func settlingTimeIsChosen() {
        let long = AlternatingWindows(windowSeconds: 10, realtimeOffset: 1_000_000_000_000, settlingSeconds: 2.5)
        // Wall clock 1,000 s starts window 100; windows 100-103 are A B B A, 2.5 s of each left out.
        #expect(long.side(ofMonotonic: 2_499_000_000) == nil)
        #expect(long.side(ofMonotonic: 2_500_000_000) == .a)
        #expect(long.side(ofMonotonic: 12_000_000_000) == nil)
        #expect(long.side(ofMonotonic: 12_600_000_000) == .b)
        #expect(long.side(ofMonotonic: 22_400_000_000) == nil)
        #expect(long.side(ofMonotonic: 22_600_000_000) == .b)
        #expect(long.side(ofMonotonic: 32_600_000_000) == .a)
    }
}
