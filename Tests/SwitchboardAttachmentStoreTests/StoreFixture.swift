import Dispatch
import Foundation
import SwitchboardAttachmentStore
import SwitchboardCrypto
import SwitchboardPostgres
import SwitchboardTestSupport
import Synchronization
import Testing

/// The two storage kinds every upload test runs against.
enum StorageKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case postgres, filesystem
    var testDescription: String { rawValue }
}

struct Timeout: Error {}

/// A throwaway database with one workspace and session, a store on it, and
/// (for filesystem storage) a fresh folder.
final class StoreFixture: @unchecked Sendable {
    let kind: StorageKind
    let database: TestDatabase
    let db: PostgresConnection
    let workspace = newUUID()
    let session = newUUID()
    let folder: String
    let storage: AttachmentStorage
    private(set) var store: AttachmentStore
    private let inspector: ImageInspector?
    private let maxWriteBytesPerSecond: Int

    init(
        _ kind: StorageKind, inspector: ImageInspector? = nil, workers: Int = 2, start: Bool = true,
        maxWriteBytesPerSecond: Int = 0
    ) throws {
        self.kind = kind
        self.inspector = inspector
        self.maxWriteBytesPerSecond = maxWriteBytesPerSecond
        database = try TestDatabase(migrated: true)
        db = try database.connect()
        folder = NSTemporaryDirectory() + "sb-attachments-" + newUUID()
        storage = kind == .postgres ? .postgres : .filesystem(path: folder)
        store = AttachmentStore(
            databaseURL: database.url, storage: storage, workers: workers, queueCapacity: 64, inspector: inspector,
            maxWriteBytesPerSecond: maxWriteBytesPerSecond)
        if start { store.start() }
        try db.query("INSERT INTO workspaces (id, name) VALUES ($1, 'w')", [workspace])
        try addSession(session)
    }

    func addSession(_ id: String, workspace: String? = nil) throws {
        try db.query(
            "INSERT INTO chat_sessions (id, workspace_id, user_id) VALUES ($1, $2, 'v-1')",
            [id, workspace ?? self.workspace])
    }

    /// Stops the store and starts another on the same database and folder (a restarted gateway).
    func restart(workers: Int = 2) {
        store.stop()
        store = AttachmentStore(
            databaseURL: database.url, storage: storage, workers: workers, queueCapacity: 64, inspector: inspector,
            maxWriteBytesPerSecond: maxWriteBytesPerSecond)
        store.start()
    }

    func close() {
        store.stop()
        database.drop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    func new(_ id: String = newUUID(), session: String? = nil, workspace: String? = nil) -> NewAttachment {
        NewAttachment(
            id: id, workspaceID: workspace ?? self.workspace, sessionID: session ?? self.session,
            uploaderRole: "visitor", uploaderID: "v-1", filename: "file-\(id.prefix(4)).bin")
    }

    // MARK: - Uploads

    /// Begins an upload and appends `bytes` in `pieces` (sizes cycled), without finishing it.
    func start(
        _ new: NewAttachment, _ bytes: [UInt8], pieces: [Int] = [1, 7919, 65536, 12345, 40_000, 3],
        quota: Int64 = 1 << 40
    ) throws -> (AttachmentUpload, StoredCounter) {
        let counter = StoredCounter()
        let upload = try #require(store.beginUpload(new, sessionQuotaBytes: quota) { counter.add($0) })
        var offset = 0
        var index = 0
        while offset < bytes.count {
            let end = min(offset + pieces[index % pieces.count], bytes.count)
            upload.append(Array(bytes[offset..<end]))
            offset = end
            index += 1
        }
        return (upload, counter)
    }

    func finish(
        _ upload: AttachmentUpload, _ bytes: [UInt8], type: String = "application/octet-stream"
    ) throws -> Result<AttachmentRecord, AttachmentStoreError> {
        try wait { done in
            upload.finish(type: type, size: Int64(bytes.count), sha256: hex(SHA256.hash(bytes)), completion: done)
        }
    }

    /// A whole upload: begin, pieces, finish.
    func upload(
        _ bytes: [UInt8], id: String = newUUID(), session: String? = nil, type: String = "application/octet-stream",
        quota: Int64 = 1 << 40
    ) throws -> Result<AttachmentRecord, AttachmentStoreError> {
        let (upload, counter) = try start(new(id, session: session), bytes, quota: quota)
        let result = try finish(upload, bytes, type: type)
        // Every byte appended is reported once, whatever the outcome.
        try counter.wait(for: bytes.count)
        return result
    }

    func lookup(_ id: String) throws -> Result<AttachmentRecord?, AttachmentStoreError> {
        try wait { done in store.lookup(id: id, completion: done) }
    }

    func read(
        _ id: String, variant: Int16 = 0, offset: Int64, length: Int
    ) throws -> Result<
        [UInt8], AttachmentStoreError
    > {
        try wait { done in store.read(id: id, variant: variant, offset: offset, length: length, completion: done) }
    }

    // MARK: - What is stored

    func chunkRows(_ id: String) throws -> Int {
        try db.query("SELECT count(*) FROM attachment_chunks WHERE attachment_id = $1", [id]).int(0, 0) ?? -1
    }

    /// Every file under the folder, relative to it.
    func files() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let path = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder + "/" + path, isDirectory: &isFolder), !isFolder.boolValue
            {
                files.append(path)
            }
        }
        return files.sorted()
    }

    /// Nothing of upload `id` remains: no row, no chunk, no file.
    func nothingStored(_ id: String) throws -> Bool {
        let rows = try db.query("SELECT count(*) FROM attachments WHERE id = $1", [id]).int(0, 0)
        return try rows == 0 && chunkRows(id) == 0 && !files().contains { $0.contains(id) }
    }
}

/// Bytes reported by `onStored`, from worker threads.
final class StoredCounter: Sendable {
    private let total = Mutex(0)

    func add(_ n: Int) { total.withLock { $0 += n } }
    var value: Int { total.withLock { $0 } }

    /// Waits (up to 30 s) until at least `bytes` are reported.
    func wait(for bytes: Int) throws {
        for _ in 0..<3000 {
            if value >= bytes { return }
            usleep(10_000)
        }
        throw Timeout()
    }
}

/// Runs `start` and waits (up to 60 s) for the value it hands its callback.
func wait<T: Sendable>(_ start: (@escaping @Sendable (T) -> Void) -> Void) throws -> T {
    let box = Mutex<T?>(nil)
    let done = DispatchSemaphore(value: 0)
    start { value in
        box.withLock { $0 = value }
        done.signal()
    }
    guard done.wait(timeout: .now() + 60) == .success else { throw Timeout() }
    return box.withLock { $0! }
}

func newUUID() -> String { UUID().uuidString.lowercased() }

func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
}

/// `count` reproducible pseudo-random bytes (xorshift), different per `seed`.
func testBytes(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed | 1
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}
