import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// A plain pthread for a loop: loops must own their OS thread outright, which
/// Swift concurrency's cooperative pool cannot promise.
public final class LoopThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: @Sendable () -> Void

    private init(body: @escaping @Sendable () -> Void) { self.body = body }

    public static func spawn(name: String, _ body: @escaping @Sendable () -> Void) -> LoopThread {
        let box = LoopThread(body: body)
        let context = Unmanaged.passRetained(box).toOpaque()
        let rc = pthread_create(
            &box.thread, nil,
            { raw in
                let box = Unmanaged<LoopThread>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        _ = pthread_setname_np(box.thread, String(name.prefix(15)))
        return box
    }

    public func join() {
        _ = pthread_join(thread, nil)
    }
}
