#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM, taken synchronously by the main thread: blocked in
/// every thread (call `block` before starting any), then waited for.
public enum TerminationSignals {
    public static func block() {
        var set = signals()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits for SIGINT or SIGTERM; returns the signal's name.
    public static func wait() -> String {
        var set = signals()
        var signal: Int32 = 0
        sigwait(&set, &signal)
        return signal == SIGINT ? "SIGINT" : "SIGTERM"
    }

    private static func signals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }
}
