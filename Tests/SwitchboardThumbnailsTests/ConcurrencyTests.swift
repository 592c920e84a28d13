import Foundation
import Synchronization
import Testing

@testable import SwitchboardThumbnails

struct ConcurrencyTests {
    /// Four threads thumbnail a mix of good, broken and bomb images at once; every
    /// answer, a failure's libvips text included, equals the one a lone call gives.
    @Test func fourThreadsGetTheAnswersOfALoneCall() {
        let truncated = Array(TestImages.fixture("photo-gps.jpg").prefix(9000))
        let inputs: [[UInt8]] =
            ["photo-gps.jpg", "rotated.jpg", "alpha.png", "animated.gif", "photo.webp", "small.jpg"].map(
                TestImages.fixture) + [truncated, TestImages.pngBomb(width: 60000, height: 60000)]
        let limit = 50_000_000
        let expected = inputs.map { Thumbnailer.inspect($0, maxPixels: limit) }
        let mismatches = Mutex<[String]>([])
        let rounds = 6
        let done = DispatchSemaphore(value: 0)
        for thread in 0..<4 {
            Thread.detachNewThread {
                for round in 0..<rounds {
                    for offset in inputs.indices {
                        let index = (offset + thread + round) % inputs.count
                        let answer = Thumbnailer.inspect(inputs[index], maxPixels: limit)
                        // libvips' error text is process-wide, yet each failure's text is its own.
                        if answer != expected[index] {
                            mismatches.withLock { $0.append("thread \(thread) input \(index): \(answer)") }
                        }
                    }
                }
                done.signal()
            }
        }
        for _ in 0..<4 { done.wait() }
        #expect(mismatches.withLock { $0 }.isEmpty)
    }

    /// Successes clear libvips' one error buffer as they finish; failures beside them
    /// still report their own text, every time.
    @Test func failuresKeepTheirTextBesideSuccessesThatClearIt() {
        let truncated = Array(TestImages.fixture("photo-gps.jpg").prefix(5000))
        let good = TestImages.fixture("small.jpg")
        let limit = 50_000_000
        let lone = Thumbnailer.inspect(truncated, maxPixels: limit)
        guard case .failure(.vips(_, let text)) = lone, text != "unknown error" else {
            Issue.record("a lone truncated JPEG gave \(lone)")
            return
        }
        let stop = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            Thread.detachNewThread {
                while !stop.load(ordering: .relaxed) { _ = Thumbnailer.inspect(good, maxPixels: limit) }
                done.signal()
            }
        }
        var wrong: [String] = []
        for _ in 0..<100 {
            let answer = Thumbnailer.inspect(truncated, maxPixels: limit)
            if answer != lone { wrong.append("\(answer)") }
        }
        stop.store(true, ordering: .relaxed)
        for _ in 0..<3 { done.wait() }
        #expect(wrong.isEmpty, "\(wrong.count) of 100: \(wrong.prefix(3))")
    }
}
