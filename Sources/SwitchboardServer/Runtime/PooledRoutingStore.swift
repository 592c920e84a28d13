import SwitchboardChatCore
import SwitchboardReaders

/// Routing's jobs on the gateway's reader pool: off every event loop, each
/// thread with its own connection, refused at once when the queue is full.
struct PooledRoutingStore: RoutingStore {
    let pool: ReaderPool

    func run(_ job: @escaping @Sendable (any RoutingQueries) -> Void) -> Bool {
        pool.submit { queries in job(queries) }
    }
}
