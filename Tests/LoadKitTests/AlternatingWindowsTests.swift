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

    @Test("a send counts for the wall-clock window it was scheduled in, even and odd in turn")
    func sidesAlternateOnTheWallClock() {
        // Wall clock 1,002 s: window 200 (even), 2 s into it.
        #expect(side(atMonotonicSeconds: 2) == .even)
        // Wall clock 1,007 s: window 201 (odd).
        #expect(side(atMonotonicSeconds: 7) == .odd)
        #expect(side(atMonotonicSeconds: 12) == .even)
        #expect(side(atMonotonicSeconds: 9.999) == .odd)
    }

    @Test("the first 250 ms of every window count for neither side")
    func settlingTimeIsLeftOut() {
        #expect(side(atMonotonicSeconds: 5) == nil)
        #expect(side(atMonotonicSeconds: 5.249) == nil)
        #expect(side(atMonotonicSeconds: 5.251) == .odd)
        #expect(side(atMonotonicSeconds: 10.1) == nil)
        #expect(side(atMonotonicSeconds: 10.251) == .even)
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
}
