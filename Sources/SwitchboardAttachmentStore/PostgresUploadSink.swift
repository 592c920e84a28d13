import SwitchboardPostgres

/// PostgreSQL storage: `attachment_chunks` rows of `AttachmentStore.chunkBytes`
/// (the last one shorter), each inserted in its own autocommitted statement as
/// soon as it is whole; a shorter last one is stored by the commit: an upload
/// of less than one chunk makes no round trip for its bytes alone. Without an `attachments`
/// row they are invisible.
final class PostgresUploadSink: UploadSink {
    private let id: String
    private var pending: [UInt8] = []
    private var next: Int32 = 0

    init(id: String) { self.id = id }

    func append(_ bytes: [UInt8], _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int {
        var stored = 0
        var offset = 0
        while offset < bytes.count {
            let take = min(AttachmentStore.chunkBytes - pending.count, bytes.count - offset)
            pending.append(contentsOf: bytes[offset..<(offset + take)])
            offset += take
            // A whole chunk goes at once: the gateway's window (one chunk) waits for it.
            if pending.count == AttachmentStore.chunkBytes { stored += try flush(context) }
        }
        return stored
    }

    func seal(_ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int { 0 }

    var commitShare: (chunks: Int32?, tail: [UInt8]?) {
        pending.isEmpty ? (next, nil) : (next + 1, pending)
    }

    func committed() -> Int {
        let stored = pending.count
        pending = []
        return stored
    }

    private func flush(_ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int {
        // Repeatable: a retry after a lost connection finds the row there or puts it there.
        try context.database.run(
            """
            INSERT INTO attachment_chunks (attachment_id, variant, n, data) VALUES ($1, 0, $2::integer, $3)
            ON CONFLICT DO NOTHING
            """, [.text(id), .text(String(next)), .bytes(pending)], retryable: true)
        next += 1
        let stored = pending.count
        // Not kept: an upload waiting for its next bytes holds no chunk-sized buffer.
        pending = []
        return stored
    }

    func readAll(size: Int64, _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(size))
        if next > 0 {
            let rows = try context.database.run(
                "SELECT data FROM attachment_chunks WHERE attachment_id = $1 AND variant = 0 ORDER BY n",
                [.text(id)], binaryResults: true, retryable: true)
            for row in 0..<rows.rowCount { _ = rows.withBytes(row, 0) { bytes.append(contentsOf: $0) } }
        }
        bytes.append(contentsOf: pending)
        return bytes
    }

    func place(thumbnail: [UInt8]?, _ context: AttachmentWorkerContext) throws(AttachmentStoreError) {
        guard let thumbnail else { return }
        var n: Int32 = 0
        var offset = 0
        repeat {
            let end = min(offset + AttachmentStore.chunkBytes, thumbnail.count)
            try context.database.run(
                """
                INSERT INTO attachment_chunks (attachment_id, variant, n, data) VALUES ($1, 1, $2::integer, $3)
                ON CONFLICT DO NOTHING
                """, [.text(id), .text(String(n)), .bytes(Array(thumbnail[offset..<end]))], retryable: true)
            n += 1
            offset = end
        } while offset < thumbnail.count
    }

    func discard(_ context: AttachmentWorkerContext) {
        pending = []
        _ = try? context.database.run("DELETE FROM attachment_chunks WHERE attachment_id = $1", [id], retryable: true)
    }
}
