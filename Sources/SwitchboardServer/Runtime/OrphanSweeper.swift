import Logging
import SwitchboardAttachmentStore

/// Deletes uploads that no message sent within `attachments.orphan_ttl_s`
/// (and the pieces of uploads a stopped gateway left half done), on a thread
/// of its own: the purge blocks on the database and the disk, which no loop
/// may. It runs a first time a minute after start, then every `interval`
/// seconds (a tenth of the time to live, at least a minute, at most an hour),
/// so an orphan lives at most 1.1 times its time to live. Several nodes
/// sweeping the same database delete each row once: the purge's DELETE takes
/// what it finds.
final class OrphanSweeper: Sendable {
    private let background = BackgroundThread(name: "sb-orphans")
    private let store: AttachmentStore
    private let timeToLive: Int
    private let logger: Logger

    private let firstSweepAfter: Int

    /// `firstSweepAfterSeconds`: a minute in the gateway, less in tests.
    init(store: AttachmentStore, timeToLiveSeconds: Int, logger: Logger, firstSweepAfterSeconds: Int = 60) {
        self.store = store
        timeToLive = timeToLiveSeconds
        self.logger = logger
        firstSweepAfter = firstSweepAfterSeconds
    }

    var interval: Int { min(3600, max(60, timeToLive / 10)) }

    func start() {
        background.start { [self] in
            var wait = firstSweepAfter
            while background.pause(milliseconds: wait * 1000) {
                sweep()
                wait = interval
            }
        }
    }

    func stop() { background.stop() }

    private func sweep() {
        do throws(AttachmentStoreError) {
            let count = try store.purgeOrphans(olderThanSeconds: timeToLive)
            if count > 0 { logger.info("deleted \(count) uploads that no message sent within \(timeToLive) s") }
        } catch {
            logger.warning("the orphan purge failed (it runs again in \(interval) s): \(error)")
        }
    }
}
