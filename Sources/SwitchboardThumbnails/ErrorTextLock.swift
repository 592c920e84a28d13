import Glibc

/// Keeps libvips' process-wide error text attributable: ordinary calls run together
/// (shared), and a failure is run once more alone (exclusive), so that the text it
/// reports is its own and not a neighbour's, nor lost to a neighbour's clearing.
///
/// Writers are preferred: a failing call waits only for the calls already running,
/// not for every call that arrives after it.
final class ErrorTextLock: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        let status = pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
        precondition(status == 0, "pthread_rwlock_init failed: \(status)")
    }

    func shared<T>(_ body: () -> T) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body()
    }

    func alone<T>(_ body: () -> T) -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body()
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }
}
