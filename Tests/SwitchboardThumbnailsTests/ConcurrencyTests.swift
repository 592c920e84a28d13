import Foundation
import Synchronization
import Testing

@testable import SwitchboardThumbnails

struct ConcurrencyTests {
    /// Four threads thumbnail a mix of good, broken and bomb images at once; every
    /// answer equals the one a lone call gives.
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
                        // libvips' error text is process-wide; the failure's kind is this call's own.
                        let same =
                            switch (answer, expected[index]) {
                            case (.success(let a), .success(let b)): a == b
                            case (.failure(.vips(let a, _)), .failure(.vips(let b, _))): a == b
                            case (.failure(let a), .failure(let b)): a == b
                            default: false
                            }
                        if !same { mismatches.withLock { $0.append("thread \(thread) input \(index): \(answer)") } }
                    }
                }
                done.signal()
            }
        }
        for _ in 0..<4 { done.wait() }
        #expect(mismatches.withLock { $0 }.isEmpty)
    }
}
