import SwitchboardSystem
import Testing

@testable import SwitchboardLoop

@Suite struct LoopSaturationTests {
    private let millisecond: UInt64 = 1_000_000

    @Test func aWindowWithAlmostNoSleepIsSaturatedAndOneWithSleepIsNot() {
        var window = BusyWindow(startingAt: 0)
        // Passes of 10 ms, none asleep: nothing said until the window has passed.
        var said: [Bool?] = []
        for pass in 1...25 { said.append(window.passed(sleptNanoseconds: 0, now: UInt64(pass) * 10 * millisecond)) }
        #expect(said.compactMap { $0 } == [true], "the first full window says saturated, once")
        #expect(window.saturated)
        // Slept 9% of the next window: still saturated, nothing new said.
        var now = 250 * millisecond
        for _ in 0..<20 {
            now += 10 * millisecond
            let changed = window.passed(sleptNanoseconds: 9 * millisecond / 10, now: now)
            #expect(changed == nil)
        }
        #expect(window.saturated)
        // One long sleep: the window ends at once, no longer saturated.
        now += 5_000 * millisecond
        #expect(window.passed(sleptNanoseconds: 4_999 * millisecond, now: now) == false)
        #expect(!window.saturated)
    }

    @Test func aLoopKeptBusyIsSaturatedAndAnIdleOrStoppedOneIsNot() throws {
        let saturation = LoopSaturation()
        let loop = try EventLoop(index: 0, maxFileDescriptors: 256, saturation: saturation)
        let thread = NamedThread.spawn(name: "test-loop") { loop.run() }
        ThisProcess.sleep(milliseconds: 300)
        #expect(!saturation.anySaturated, "an idle loop is not saturated")

        // Tasks that each keep the loop 20 ms, one after another, for 600 ms.
        @Sendable func spin(until: UInt64) {
            let end = MonotonicClock.nanoseconds() + 20 * millisecond
            while MonotonicClock.nanoseconds() < end {}
            if MonotonicClock.nanoseconds() < until { loop.execute { spin(until: until) } }
        }
        let first = MonotonicClock.nanoseconds() + 600 * millisecond
        loop.execute { spin(until: first) }
        #expect(waitUntil(seconds: 2) { saturation.anySaturated }, "a loop that never sleeps is saturated")
        #expect(saturation.saturatedCount == 1)
        // Idle again, with nothing to wake it: it says so within a window or two.
        #expect(waitUntil(seconds: 2) { !saturation.anySaturated }, "the loop went idle and stayed saturated")

        // Stopped while saturated.
        let second = MonotonicClock.nanoseconds() + 5_000 * millisecond
        loop.execute { spin(until: second) }
        #expect(waitUntil(seconds: 2) { saturation.anySaturated })
        loop.stop()
        thread.join()
        #expect(saturation.saturatedCount == 0, "a stopped loop holds nothing back")
    }
}
