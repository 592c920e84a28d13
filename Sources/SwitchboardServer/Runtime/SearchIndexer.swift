import Logging
import SwitchboardMetrics
import SwitchboardReaders
import SwitchboardSystem
import Synchronization

/// Makes stored messages searchable, on a thread of its own: it takes the
/// backlog the writer's batches leave (migration 20) and writes their vectors
/// (`ChatQueries.indexSearchBacklog`), so that the writer's transaction pays
/// one backlog row per batch instead of every message's words. A pass that
/// found more work runs the next at once (a backlog after an outage, or the
/// messages stored before migration 20, drain at full speed) unless this
/// node's writer is behind, when it yields (`AfterCommitPacing`);
/// an idle one waits `search.index_interval_ms`. Every node runs one; they
/// share the backlog without coordination (`SKIP LOCKED`).
final class SearchIndexer: Sendable {
    private let queries: Mutex<ChatQueries>
    private let logger: Logger
    private let metrics: GatewayMetrics
    private let pacing: AfterCommitPacing
    private let gatewayBusy: @Sendable () -> Bool
    private let background = BackgroundThread(name: "sb-search-index")

    /// `gatewayBusy`: whether this node is saturated: its writer behind (`BatchWriter.isBehind`) or an event loop with no idle time (`LoopSaturation`).
    init(
        databaseURL: String, pacing: AfterCommitPacing, metrics: GatewayMetrics, logger: Logger,
        gatewayBusy: @escaping @Sendable () -> Bool
    ) {
        // A vector lost in a crash is indexed again (its backlog row comes back
        // with it): no commit waits for the disk.
        queries = Mutex(ChatQueries(databaseURL: databaseURL, waitsForDisk: false, role: .searchIndexer))
        self.pacing = pacing
        self.metrics = metrics
        self.gatewayBusy = gatewayBusy
        self.logger = logger
    }

    func start() { background.start { [self] in run() } }

    func stop() { background.stop() }

    private func run() {
        var failing = false
        var catchingUp = 0
        while !background.isStopped {
            var wait = pacing.idleMilliseconds
            do throws(QueryError) {
                let started = MonotonicClock.nanoseconds()
                let pass = try queries.withLock { queries throws(QueryError) in try queries.indexSearchBacklog() }
                let took = Int((MonotonicClock.nanoseconds() - started) / 1000)
                metrics.searchIndexed.increment(by: pass.indexed)
                metrics.searchCatchingUp.set(pass.more ? 1 : 0)
                if failing { logger.info("search indexing resumed") }
                failing = false
                wait = pacing.wait(more: pass.more, passMicroseconds: took, gatewayBusy: gatewayBusy())
                catchingUp = pass.more ? catchingUp + pass.indexed : 0
                if catchingUp >= 100_000 {
                    logger.info("search indexing is catching up: \(catchingUp) messages indexed in a row")
                    catchingUp = 0
                }
            } catch {
                if !failing { logger.warning("search indexing failed (retrying every second): \(error)") }
                failing = true
                wait = max(wait, 1000)
            }
            background.pause(milliseconds: wait)
        }
    }
}
