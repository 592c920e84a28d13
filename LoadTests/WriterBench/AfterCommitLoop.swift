import Foundation
import SwitchboardPostgres
import SwitchboardReaders
import SwitchboardWriter
import Synchronization

/// A gateway job that works through what the writer's batches left, run as
/// the gateway runs it (`SearchIndexer`, `WebhookExpander`): passes back to
/// back while they find work, at most the pacing's share of the time while
/// the writer is behind, and idle ones `idleMilliseconds` apart.
final class AfterCommitLoop: @unchecked Sendable {
    typealias Pass = @Sendable (ChatQueries) throws(QueryError) -> (done: Int, more: Bool)

    private let stopped = Atomic<Bool>(false)
    /// While set, no passes (`--only alternate`'s A windows).
    let paused = Atomic<Bool>(false)
    /// What the passes did: messages indexed, events made.
    let done = Atomic<Int>(0)
    /// The table whose rows are the work left.
    private let backlog: String
    private var thread: Thread?

    init(_ url: String, writer: BatchWriter, pacing: AfterCommitPacing, backlog: String, pass: @escaping Pass) {
        self.backlog = backlog
        let queries = Mutex(ChatQueries(databaseURL: url, waitsForDisk: false))
        thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                if paused.load(ordering: .relaxed) {
                    usleep(10_000)
                    continue
                }
                do {
                    let started = now()
                    let result = try queries.withLock { queries throws(QueryError) in try pass(queries) }
                    done.add(result.done, ordering: .relaxed)
                    let wait = pacing.wait(
                        more: result.more, passMicroseconds: Int((now() - started) / 1000),
                        gatewayBusy: writer.isBehind)
                    if wait > 0 { usleep(UInt32(wait) * 1000) }
                } catch {
                    fatalError("\(backlog): a pass failed: \(error)")
                }
            }
        }
        thread?.start()
    }

    /// The search indexer at `share` percent.
    static func search(_ url: String, writer: BatchWriter, share: Int) -> AfterCommitLoop {
        AfterCommitLoop(
            url, writer: writer,
            pacing: AfterCommitPacing(
                idleMilliseconds: AfterCommitPacing.search.idleMilliseconds, busySharePercent: share),
            backlog: "search_backlog"
        ) { queries throws(QueryError) in
            let pass = try queries.indexSearchBacklog()
            return (pass.indexed, pass.more)
        }
    }

    /// The webhook expander at the gateway's default share. Idle, it looks
    /// again after 5 ms: the gateway's is woken by each commit that left work.
    static func webhooks(_ url: String, writer: BatchWriter) -> AfterCommitLoop {
        AfterCommitLoop(
            url, writer: writer,
            pacing: AfterCommitPacing(
                idleMilliseconds: 5, busySharePercent: AfterCommitPacing.webhooks.busySharePercent),
            backlog: "webhook_backlog"
        ) { queries throws(QueryError) in
            let (pass, _) = try queries.expandWebhookBacklog()
            return (pass.events, pass.more)
        }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Waits until the backlog is empty, then stops the loop.
    func drain(_ connection: PostgresConnection) throws {
        while try connection.query("SELECT count(*) FROM \(backlog)").int(0, 0) != 0 { usleep(10_000) }
        stopped.store(true, ordering: .relaxed)
    }
}

/// After the search indexer drained: every message the writer stored in `sessions` but system
/// lines has its vector. Only those sessions': the naive run's rows, inserted beside the writer,
/// leave no backlog row and are never indexed.
func checkEveryMessageIndexed(_ connection: PostgresConnection, sessions: [String]) throws {
    let missing = try connection.query(
        """
        SELECT count(*) FROM chats c
         WHERE c.session_id = ANY ($1::uuid[]) AND c.kind <> 'event'
           AND NOT EXISTS (SELECT 1 FROM message_search m WHERE m.chat_id = c.id)
        """, [PostgresArray.textLiteral(sessions)])
    guard missing.int(0, 0) == 0 else { fatalError("\(missing.rows) stored messages were never indexed") }
}
