import SwitchboardIdentifiers
import Synchronization

/// One upload's state on the worker it is pinned to; every method runs there,
/// in the order the caller's calls were made.
///
/// @unchecked Sendable: the jobs that capture it all run on one worker thread,
/// one after another (the queue's mutex orders their hand-over), so its
/// mutable state is never touched by two threads.
final class UploadWriter: @unchecked Sendable {
    let new: NewAttachment
    private let quota: Int64
    private let onStored: @Sendable (Int) -> Void

    private var sink: UploadSink?
    /// Set by the first failure: later pieces are dropped and `finish` reports it.
    private var failure: AttachmentStoreError?
    private var received: Int64 = 0
    /// Received and not yet reported through `onStored`.
    private var unreported = 0
    /// The quota left when the upload began (rechecked when it commits).
    private var room: Int64 = 0
    private var ended = false
    /// Set from the caller's thread the moment the upload is abandoned, ahead of
    /// the abort job: pieces still queued before that job are dropped instead of
    /// written (and paced) only to be deleted.
    private let abandoned = Atomic<Bool>(false)

    init(new: NewAttachment, quota: Int64, onStored: @escaping @Sendable (Int) -> Void) {
        self.new = new
        self.quota = quota
        self.onStored = onStored
    }

    // MARK: - Jobs

    /// The session exists in the workspace, is not deleted, and has room left.
    func begin(_ context: AttachmentWorkerContext) {
        guard UUIDText.canonical(new.id) == new.id else {
            return fail(.unavailable("attachment id \(new.id) is not a lower-case UUID"), context)
        }
        guard UUIDText.canonical(new.sessionID) != nil, UUIDText.canonical(new.workspaceID) != nil else {
            return fail(.noSession, context)
        }
        do {
            let session = try context.database.run(
                """
                SELECT s.deleted_at IS NULL, (SELECT coalesce(sum(size), 0) FROM attachments WHERE session_id = s.id)
                  FROM chat_sessions s WHERE s.id = $1 AND s.workspace_id = $2
                """, [new.sessionID, new.workspaceID], retryable: true)
            guard session.rowCount == 1, session.bool(0, 0) == true else { return fail(.noSession, context) }
            let stored = session.string(0, 1).flatMap { Int64($0) } ?? 0
            guard stored < quota else { return fail(.quotaExceeded, context) }
            room = quota - stored
            switch context.storage {
            case .postgres: sink = PostgresUploadSink(id: new.id)
            case .filesystem: sink = try FileUploadSink(id: new.id, context)
            }
        } catch {
            fail(error, context)
        }
    }

    func append(_ bytes: [UInt8], _ context: AttachmentWorkerContext) {
        guard failure == nil, !ended, !abandoned.load(ordering: .relaxed), let sink else {
            // Dropped, but reported: the caller's budget must come back all the same.
            onStored(bytes.count)
            return
        }
        received += Int64(bytes.count)
        unreported += bytes.count
        guard received <= room else { return fail(.quotaExceeded, context) }
        context.writeRate?.pace(bytes.count)
        do {
            report(try sink.append(bytes, context))
        } catch {
            fail(error, context)
        }
    }

    func finish(
        type: String, size: Int64, sha256: String, _ context: AttachmentWorkerContext,
        completion: @Sendable (Result<AttachmentRecord, AttachmentStoreError>) -> Void
    ) {
        guard !ended else { return completion(.failure(failure ?? .unavailable("the upload was aborted"))) }
        if failure == nil && received != size {
            fail(.unavailable("the upload received \(received) bytes, not \(size)"), context)
        }
        guard failure == nil, let sink else {
            ended = true
            return completion(.failure(failure ?? .unavailable("the upload never began")))
        }
        ended = true
        do {
            report(try sink.seal(context))
            let facts = try inspect(type: type, size: size, sink, context)
            try sink.place(thumbnail: facts?.thumbnail, context)
            let record = try commit(type: type, size: size, sha256: sha256, facts: facts, sink, context)
            self.sink = nil
            completion(.success(record))
        } catch let outcome as AttachmentDatabase.Outcome {
            // A commit whose outcome is unknown keeps its bytes: a row may point at them.
            if case .rolledBack = outcome { sink.discard(context) }
            release()
            completion(.failure(outcome.error))
        } catch let error as AttachmentStoreError {
            sink.discard(context)
            release()
            completion(.failure(error))
        } catch {
            sink.discard(context)
            release()
            completion(.failure(.unavailable("\(error)")))
        }
    }

    /// Any thread: the upload will be aborted; its queued pieces need not be written.
    func abandon() {
        abandoned.store(true, ordering: .relaxed)
    }

    func abort(_ context: AttachmentWorkerContext) {
        guard !ended else { return }
        ended = true
        sink?.discard(context)
        sink = nil
        release()
    }

    // MARK: - Steps

    private func inspect(
        type: String, size: Int64, _ sink: UploadSink, _ context: AttachmentWorkerContext
    ) throws(AttachmentStoreError) -> ImageFacts? {
        guard let inspector = context.inspector, type.lowercased().hasPrefix("image/") else { return nil }
        guard size <= context.maxImageBytes else {
            throw .imageRefused("an image of \(size) bytes is larger than the \(context.maxImageBytes) inspected")
        }
        switch inspector(try sink.readAll(size: size, context), type) {
        case .success(let facts): return facts
        case .failure(let refusal): throw .imageRefused(refusal.message)
        }
    }

    /// One statement, repeatable (migration 15): a lost connection is tried again once
    /// on a fresh one, and only a second loss leaves the outcome unknown.
    private func commit(
        type: String, size: Int64, sha256: String, facts: ImageFacts?, _ sink: UploadSink,
        _ context: AttachmentWorkerContext
    ) throws(AttachmentDatabase.Outcome) -> AttachmentRecord {
        let share = sink.commitShare
        let text: [String?] = [
            new.id, new.workspaceID, new.sessionID, new.uploaderRole, new.uploaderID, new.filename, type,
            String(size), sha256, facts.map { String($0.width) }, facts.map { String($0.height) },
            context.storage.column, facts?.thumbnail.map { String($0.count) }, String(quota),
            share.chunks.map { String($0) },
        ]
        let row = try context.database.commit(
            """
            SELECT \(AttachmentRows.columns(sessionDeleted: "false"))
              FROM switchboard_commit_attachment($1, $2, $3, $4, $5, $6, $7, $8::bigint, $9, $10::integer,
                                                 $11::integer, $12, $13::bigint, $14::bigint, $15::integer, $16) a
            """, text.map { .text($0) } + [share.tail.map { .bytes($0) } ?? .text(nil)])
        report(sink.committed())
        return AttachmentRows.record(row)
    }

    // MARK: - Accounting

    /// A piece the stopped store would not take: reported at once, on the caller's thread.
    func droppedOnStoppedStore(_ count: Int) {
        onStored(count)
    }

    private func report(_ stored: Int) {
        guard stored > 0 else { return }
        unreported -= stored
        onStored(stored)
    }

    /// Hands back every byte not yet reported.
    private func release() {
        guard unreported > 0 else { return }
        let bytes = unreported
        unreported = 0
        onStored(bytes)
    }

    private func fail(_ error: AttachmentStoreError, _ context: AttachmentWorkerContext) {
        failure = error
        sink?.discard(context)
        sink = nil
        release()
    }
}
