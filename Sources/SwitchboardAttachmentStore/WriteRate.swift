import SwitchboardSystem
import Synchronization

/// The bytes per second all attachment workers of a process may write, as a
/// token bucket shared by the workers (a second's worth of burst). A worker
/// takes its bytes before it writes them and sleeps off any debt: the upload's
/// window then stays full, its connection stops reading, and the client is
/// slowed by TCP, with nothing held in memory. Uploads share PostgreSQL's WAL
/// and the disk with the chat's commits; this is what keeps a burst of large
/// files from lengthening every chat message's commit (docs/benchmarks.md,
/// "Attachments").
public final class WriteRate: Sendable {
    private struct Bucket {
        var tokens: Double
        var at: UInt64
    }

    public let bytesPerSecond: Int
    private let bucket: Mutex<Bucket>

    public init(bytesPerSecond: Int, nowNanoseconds: UInt64 = MonotonicClock.nanoseconds()) {
        precondition(bytesPerSecond > 0)
        self.bytesPerSecond = bytesPerSecond
        bucket = Mutex(Bucket(tokens: Double(bytesPerSecond), at: nowNanoseconds))
    }

    /// Takes `bytes`; how long the caller must wait before writing them (0 when the bucket held them).
    public func take(_ bytes: Int, nowNanoseconds now: UInt64 = MonotonicClock.nanoseconds()) -> UInt64 {
        let rate = Double(bytesPerSecond)
        return bucket.withLock { bucket in
            let elapsed = Double(now &- min(now, bucket.at)) / 1e9
            bucket.tokens = min(rate, bucket.tokens + elapsed * rate) - Double(bytes)
            bucket.at = max(bucket.at, now)
            return bucket.tokens >= 0 ? 0 : UInt64(-bucket.tokens / rate * 1e9)
        }
    }

    /// Takes `bytes` and sleeps until they may be written (on a worker thread only).
    func pace(_ bytes: Int) {
        let wait = take(bytes)
        if wait > 0 { ThisProcess.sleep(milliseconds: Int((wait + 999_999) / 1_000_000)) }
    }
}
