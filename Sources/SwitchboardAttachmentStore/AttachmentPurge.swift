import SwitchboardIdentifiers
import SwitchboardSystem

/// The purges, on a connection of their own (the CLI's, or a background
/// timer's thread). Rows go first, then their bytes: an attachment vanishes
/// for readers at once, and bytes left by a crash in between are found the
/// next time as bytes with no row.
struct AttachmentPurge {
    private let database: AttachmentDatabase
    private let layout: FileLayout?
    /// Rows deleted per statement: short transactions, and a bounded id list per step.
    private static let batch = 500

    init(databaseURL: String, storage: AttachmentStorage) {
        database = AttachmentDatabase(databaseURL: databaseURL)
        if case .filesystem(let path) = storage { layout = FileLayout(root: path) } else { layout = nil }
    }

    func orphans(olderThanSeconds: Int, abandonedAfterSeconds: Int) throws(AttachmentStoreError) -> Int {
        let neverSent = try deleteRows(
            """
            SELECT id FROM attachments
             WHERE sent_at IS NULL AND created_at <= now() - make_interval(secs => $1::double precision)
             ORDER BY created_at LIMIT \(Self.batch) FOR UPDATE SKIP LOCKED
            """, String(max(0, olderThanSeconds)))
        // Uploads that never committed: chunks and files with no row, past the time any upload takes.
        var abandoned = Set<String>()
        let chunks = try database.run(
            """
            WITH gone AS (
                DELETE FROM attachment_chunks c
                 WHERE c.created_at <= now() - make_interval(secs => $1::double precision)
                   AND NOT EXISTS (SELECT 1 FROM attachments a WHERE a.id = c.attachment_id)
                RETURNING attachment_id)
            SELECT DISTINCT attachment_id::text FROM gone
            """, [String(max(0, abandonedAfterSeconds))], retryable: true)
        for row in 0..<chunks.rowCount { if let id = chunks.string(row, 0) { abandoned.insert(id) } }
        if let layout {
            let cutoff = UnixClock.nowSeconds() - Int64(max(0, abandonedAfterSeconds))
            abandoned.formUnion(try purgeTemporaryFiles(layout, before: cutoff))
            abandoned.formUnion(try purgeStrayFiles(layout, before: cutoff))
        }
        return neverSent + abandoned.count
    }

    func deleted(retentionDays: Int) throws(AttachmentStoreError) -> Int {
        try deleteRows(
            """
            SELECT a.id FROM attachments a JOIN chat_sessions s ON s.id = a.session_id
             WHERE s.deleted_at <= now() - make_interval(days => $1::integer)
             LIMIT \(Self.batch) FOR UPDATE OF a SKIP LOCKED
            """, String(max(0, retentionDays)))
    }

    // MARK: - Rows and their bytes

    /// Deletes, batch by batch, the rows `selection` picks with their bytes
    /// in PostgreSQL in the same statement (an attachment is never seen gone
    /// with its chunks still there), then the files of those stored on disk;
    /// returns how many.
    private func deleteRows(_ selection: String, _ parameter: String) throws(AttachmentStoreError) -> Int {
        var total = 0
        while true {
            let rows = try database.run(
                """
                WITH gone AS (
                    DELETE FROM attachments WHERE id IN (\(selection)) RETURNING id, storage
                ),
                chunks AS (
                    DELETE FROM attachment_chunks c USING gone g WHERE c.attachment_id = g.id AND g.storage <> 'filesystem'
                )
                SELECT id::text, storage FROM gone
                """, [parameter], retryable: true)
            guard rows.rowCount > 0 else { return total }
            for row in 0..<rows.rowCount where rows.string(row, 1) == "filesystem" {
                guard let id = rows.string(row, 0) else { continue }
                try deleteFiles(id)
            }
            total += rows.rowCount
        }
    }

    /// Both files of an attachment in filesystem storage (none when no path is configured here).
    private func deleteFiles(_ id: String) throws(AttachmentStoreError) {
        guard let layout else { return }
        do {
            try Files.unlink(layout.path(id, variant: 0))
            try Files.unlink(layout.path(id, variant: 1))
        } catch {
            throw .unavailable(error.description)
        }
    }

    // MARK: - Files with no row

    /// `<path>/tmp` files untouched since `cutoff`: uploads abandoned mid-way (a live one writes as it goes).
    private func purgeTemporaryFiles(
        _ layout: FileLayout, before cutoff: Int64
    ) throws(AttachmentStoreError) -> Set<
        String
    > {
        var ids = Set<String>()
        do {
            for name in try Files.list(layout.temporaryFolder) {
                let path = "\(layout.temporaryFolder)/\(name)"
                guard let info = try Files.stat(path), info.modified <= cutoff else { continue }
                try Files.unlink(path)
                ids.insert(String(name.prefix(36)))
            }
        } catch {
            throw .unavailable(error.description)
        }
        return ids
    }

    /// Stored files whose row does not exist: a crash between the rename and
    /// the row's commit, or rows deleted with their session or workspace.
    private func purgeStrayFiles(_ layout: FileLayout, before cutoff: Int64) throws(AttachmentStoreError) -> Set<String>
    {
        var stray = Set<String>()
        var candidates: [String: [String]] = [:]  // id -> its files
        func check() throws(AttachmentStoreError) {
            guard !candidates.isEmpty else { return }
            let known = try database.run(
                "SELECT id::text FROM attachments WHERE id = ANY($1::uuid[])",
                ["{" + candidates.keys.joined(separator: ",") + "}"], retryable: true)
            for row in 0..<known.rowCount { if let id = known.string(row, 0) { candidates[id] = nil } }
            do {
                for (id, paths) in candidates {
                    for path in paths { try Files.unlink(path) }
                    stray.insert(id)
                }
            } catch {
                throw .unavailable(error.description)
            }
            candidates = [:]
        }
        do {
            for folder in try Files.list(layout.root) where folder.utf8.count == 2 && folder.utf8.allSatisfy(\.isHex) {
                for name in try Files.list("\(layout.root)/\(folder)") {
                    guard let id = FileLayout.attachmentID(ofStored: name), UUIDText.canonical(id) == id else {
                        continue
                    }
                    let path = "\(layout.root)/\(folder)/\(name)"
                    guard let info = try Files.stat(path), info.modified <= cutoff else { continue }
                    candidates[id, default: []].append(path)
                    if candidates.count >= Self.batch { try check() }
                }
            }
        } catch let error as AttachmentStoreError {
            throw error
        } catch {
            throw .unavailable("\(error)")
        }
        try check()
        return stray
    }
}

extension UInt8 {
    fileprivate var isHex: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
    }
}
