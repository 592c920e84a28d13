import CSystem

#if canImport(Glibc)
import Glibc
#endif

/// A POSIX counting semaphore: where idle reader threads sleep until a job
/// (or the stop signal) is posted. A semaphore rather than a condition
/// variable because `Synchronization.Mutex` cannot be waited on, and a count
/// never loses a wake-up that arrives before the thread starts waiting.
///
/// @unchecked Sendable: sem_post and sem_wait are thread-safe by POSIX; the
/// sem_t lives at a fixed heap address allocated in init, never moved or
/// reassigned, and destroyed in deinit when no thread can reach it any more.
public final class Semaphore: @unchecked Sendable {
    private let handle: UnsafeMutablePointer<sem_t>

    public init() {
        handle = .allocate(capacity: 1)
        let rc = sem_init(handle, 0, 0)
        precondition(rc == 0, "sem_init failed")
    }

    deinit {
        sem_destroy(handle)
        handle.deallocate()
    }

    public func post() {
        _ = sem_post(handle)
    }

    /// Sleeps until a post is available and takes it (retrying after signals).
    public func wait() {
        while sem_wait(handle) != 0 {
            // EINTR is the only failure a valid semaphore reports.
            precondition(currentErrno() == EINTR, "sem_wait failed: errno \(currentErrno())")
        }
    }
}
