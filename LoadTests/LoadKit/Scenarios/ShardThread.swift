#if canImport(Glibc)
import Glibc
#endif

/// A plain POSIX thread running one closure: a shard's client loop.
final class ShardThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let shardThread = Unmanaged<ShardThread>.fromOpaque(raw!).takeRetainedValue()
                shardThread.body()
                return nil
            }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
    }

    func join() {
        pthread_join(thread, nil)
    }
}

/// The wall-clock time for a report's `started_at`, in UTC.
enum WallClock {
    static func rfc3339Now() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
