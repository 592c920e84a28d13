import Foundation
import Logging
import SwitchboardAttachmentStore
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

/// The gateway deletes uploads no message sent within their time to live by
/// itself, without `switchboard attachments purge`.
@Suite struct OrphanSweeperTests {
    @Test func anUnsentUploadPastItsTimeToLiveIsDeletedAndASentOneKept() throws {
        let database = try TestDatabase(migrated: true)
        let db = try database.connect()
        let workspace = UUID().uuidString.lowercased()
        let session = UUID().uuidString.lowercased()
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $2, 'v-1')", [session, workspace])
        let orphan = UUID().uuidString.lowercased()
        let sent = UUID().uuidString.lowercased()
        for id in [orphan, sent] {
            try db.query(
                """
                INSERT INTO attachments (id, workspace_id, session_id, uploader_role, uploader_id, filename,
                                         content_type, size, sha256, storage, created_at)
                VALUES ($1, $2, $3, 'visitor', 'v-1', 'a.txt', 'text/plain', 1, repeat('0', 64), 'postgres',
                        now() - interval '2 days')
                """, [id, workspace, session])
            try db.query(
                "INSERT INTO attachment_chunks (attachment_id, variant, n, data) VALUES ($1, 0, 0, '\\x61')", [id])
        }
        try db.query("UPDATE attachments SET sent_at = now(), message_id = gen_random_uuid() WHERE id = $1", [sent])
        let store = AttachmentStore(
            databaseURL: database.url, storage: .postgres, workers: 1, queueCapacity: 8, inspector: nil)
        store.start()
        defer { store.stop() }
        let sweeper = OrphanSweeper(
            store: store, timeToLiveSeconds: 86400, logger: Logger(label: "test"), firstSweepAfterSeconds: 1)
        #expect(sweeper.interval == 3600)
        sweeper.start()
        defer { sweeper.stop() }
        let deadline = Date().addingTimeInterval(20)
        var left: [String] = []
        repeat {
            Thread.sleep(forTimeInterval: 0.2)
            left = try db.query("SELECT id::text FROM attachments ORDER BY id").rows.map { $0[0] ?? "" }
        } while left.count > 1 && Date() < deadline
        #expect(left == [sent])
        let chunks = try db.query("SELECT attachment_id::text FROM attachment_chunks").rows.map { $0[0] ?? "" }
        #expect(chunks == [sent])
    }

    @Test func theIntervalIsATenthOfTheTimeToLiveBetweenAMinuteAndAnHour() {
        func interval(_ ttl: Int) -> Int {
            OrphanSweeper(
                store: AttachmentStore(
                    databaseURL: "postgresql://nowhere", storage: .postgres, workers: 1, queueCapacity: 1,
                    inspector: nil),
                timeToLiveSeconds: ttl, logger: Logger(label: "test")
            ).interval
        }
        #expect(interval(60) == 60)
        #expect(interval(6000) == 600)
        #expect(interval(86400) == 3600)
    }
}
