import SwitchboardChatCore
import SwitchboardReaders

/// The production reader: the gateway's `ReaderPool`, answering on one loop.
struct PooledSessionReader: SessionReader {
    let pool: ReaderPool
    let loop: LoopHandoff

    func read<T: Sendable>(
        _ query: @escaping @Sendable (any SessionQueries) throws(QueryError) -> T,
        then finish: @escaping @Sendable (Result<T, QueryError>) -> Void
    ) -> Bool {
        pool.run({ queries in Result { () throws(QueryError) in try query(queries) } }, thenOn: loop, finish)
    }
}
