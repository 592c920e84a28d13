import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// A plain, named pthread running one closure: event loops, the writer's
/// shards and the reader pool each own their OS thread outright, which Swift
/// concurrency's cooperative pool cannot promise (and libpq calls block).
public final class NamedThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: @Sendable () -> Void

    private init(body: @escaping @Sendable () -> Void) { self.body = body }

    /// Starts `body` on a new thread named `name` (cut to the 15 bytes Linux keeps).
    public static func spawn(name: String, _ body: @escaping @Sendable () -> Void) -> NamedThread {
        let box = NamedThread(body: body)
        let context = Unmanaged.passRetained(box).toOpaque()
        let rc = pthread_create(
            &box.thread, nil,
            { raw in
                let box = Unmanaged<NamedThread>.fromOpaque(raw!).takeRetainedValue()
                box.body()
                return nil
            }, context)
        precondition(rc == 0, "pthread_create failed: \(rc)")
        _ = pthread_setname_np(box.thread, String(name.prefix(15)))
        return box
    }

    /// Whether the caller is running on this thread (which cannot join itself).
    public var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

    public func join() {
        _ = pthread_join(thread, nil)
    }

    /// Lets the thread end on its own, never joined (its resources freed when it does).
    public func detach() {
        _ = pthread_detach(thread)
    }

    /// Lowers the calling thread's scheduling priority to `nice` (0 to 19; Linux
    /// gives each thread its own nice value). Background threads that share a
    /// core with the event loops (the attachment workers) call it so that a loop
    /// with work preempts them. Raising a priority back needs privileges, so
    /// this only ever lowers it; a refusal is harmless and ignored.
    public static func lowerCurrentPriority(nice: Int32) {
        _ = csystem_set_thread_nice(max(0, min(19, nice)))
    }
}
