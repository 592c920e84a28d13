import SwitchboardChatCore
import SwitchboardReaders

extension ReaderPool {
    /// Runs `job` on a reader thread, then `finish` with its result on the
    /// loop behind `loop` (`first`: ahead of its ordinary queue, for the
    /// answers to plain HTTP requests). Returns false at once when the pool
    /// cannot take it.
    func run<T: Sendable>(
        _ job: @escaping @Sendable (ChatQueries) -> T, thenOn loop: LoopHandoff, first: Bool = false,
        _ finish: @escaping @Sendable (T) -> Void
    ) -> Bool {
        submit { queries in
            let result = job(queries)
            loop.post(first: first) { finish(result) }
        }
    }
}
