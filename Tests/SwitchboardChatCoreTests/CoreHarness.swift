import Foundation
import Logging
import SwitchboardAttachments
import SwitchboardAuth
import SwitchboardChat
import SwitchboardMetrics
import SwitchboardSystem

@testable import SwitchboardChatCore

/// Chat cores on manual loops, with an in-memory database behind fake
/// readers: the whole chat logic of a gateway, driven step by step.
final class CoreHarness {
    static let workspace = "0b1c2d3e-0000-4000-8000-000000000001"
    static let otherWorkspace = "0b1c2d3e-0000-4000-8000-000000000002"
    static let secret = "core-harness-secret-of-at-least-32-bytes"

    let database: MemoryDatabase
    let loops: [ManualLoop]
    let readers: [ManualReader]
    let cores: ChatCores
    let metrics: GatewayMetrics
    /// Wall-clock seconds, as the cores read them for tokens; tests move it.
    let wallClock = TestWallClock()
    /// Loop time (milliseconds) given with every frame and tick; tests move it.
    var nowMilliseconds: UInt64 = 1_000

    /// Frames are not rate limited unless `configure` says so: most tests send faster than a person.
    init(loops count: Int = 1, loopCapacity: Int = 1024, configure: (inout ChatSettings) -> Void = { _ in }) {
        var settings = ChatSettings(ratePerSecond: 1e9, rateBurst: 1_000_000_000)
        configure(&settings)
        let database = MemoryDatabase()
        let cores = ChatCores()
        let metrics = GatewayMetrics()
        let loops = (0..<count).map { _ in ManualLoop(capacity: loopCapacity) }
        let readers = loops.map { ManualReader(database: database, loop: $0) }
        self.database = database
        self.cores = cores
        self.metrics = metrics
        self.loops = loops
        self.readers = readers
        var logger = Logger(label: "core-test")
        logger.logLevel = .critical
        let handoffs = loops.enumerated().map { LoopHandoff(index: $0.offset, loop: $0.element, logger: logger) }
        cores.attach(handoffs) { index, _ in
            ChatCore(
                loopIndex: index, settings: settings,
                verifier: TokenVerifier(secret: Self.secret, clockSkewSeconds: settings.clockSkewSeconds),
                attachmentSigner: AttachmentURLSigner(jwtSecret: Array(Self.secret.utf8)), store: database,
                reader: readers[index], loop: loops[index], cores: cores, metrics: metrics,
                logger: logger, wallClock: { [wallClock] in wallClock.seconds })
        }
    }

    /// A connected client on loop `loop` that has said `hello` with a valid
    /// token (its `welcome` taken from its frames).
    func connect(
        _ role: Role, _ sub: String, name: String? = nil, workspace: String = CoreHarness.workspace, loop: Int = 0,
        ttl: Int64 = 3600
    ) -> Client {
        let client = open(loop: loop)
        client.send(["type": "hello", "token": token(role, sub, name: name, workspace: workspace, ttl: ttl)])
        _ = client.peer.take()
        return client
    }

    /// A connection that has said nothing yet.
    func open(loop: Int = 0) -> Client {
        let peer = RecordingPeer()
        let core = cores.core(forLoop: loop)
        return Client(harness: self, core: core, id: core.open(peer, nowMilliseconds: nowMilliseconds), peer: peer)
    }

    /// A token signed with the cores' secret, valid from now for `ttl` seconds.
    func token(
        _ role: Role, _ sub: String, name: String? = nil, workspace: String = CoreHarness.workspace, ttl: Int64 = 3600
    ) -> String {
        TokenMinter.mint(
            TokenClaims(
                subject: sub, role: role, workspaceID: workspace, name: name, issuedAt: wallClock.seconds,
                expiresAt: wallClock.seconds + ttl),
            secret: Self.secret)
    }

    /// Every connection's deadlines at the harness's time.
    func tick() {
        for core in cores.cores { for id in core.clients.keys { core.tick(id, nowMilliseconds: nowMilliseconds) } }
    }

    /// Runs readers and loops until nothing is left to do, the loops'
    /// timers included (their clocks move on to each, when nothing else runs).
    func settle() {
        var progress = true
        while progress {
            progress = false
            for reader in readers where reader.runQueries() > 0 { progress = true }
            for loop in loops where loop.run() > 0 { progress = true }
            if !progress { for loop in loops where loop.fireTimers() > 0 { progress = true } }
        }
    }

    /// Commits every pending send as one batch and hands it to every core, as the writer's sink does.
    @discardableResult
    func commit() -> Int {
        let batch = database.commitPending()
        cores.everyCore(fromDatabaseThread: { $0.committed(batch) })
        return batch.results.count
    }

    /// A session opened by `visitor`; its `session` answer is taken from the visitor's frames.
    func createSession(_ visitor: Client, title: String = "Order question") -> String {
        visitor.send(["type": "session.create", "title": title])
        settle()
        let answer = visitor.peer.take().first { $0["type"] as? String == "session" }
        return (answer?["session"] as? [String: Any])?["id"] as? String ?? "missing"
    }

    /// A visitor (`v-1`, on loop 0) and the session it opened.
    func visitorWithSession() -> (visitor: Client, session: String) {
        let visitor = connect(.visitor, "v-1")
        return (visitor, createSession(visitor))
    }

    /// A message stored in `sessionID` outside any client (another node, an earlier run).
    func storeMessage(_ sessionID: String, body: String) {
        _ = database.submit(
            WriteCommandFixture.make(sessionID: sessionID, clientMessageID: UUID().uuidString, body: body))
        commit()
    }

    struct Client {
        unowned let harness: CoreHarness
        let core: ChatCore
        let id: UInt64
        let peer: RecordingPeer

        /// A client frame, decoded by the gateway's own decoder, as the socket would hand it over.
        func send(_ object: [String: Any]) {
            sendText(String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        }

        /// A text message as it came off the socket, valid JSON or not.
        func sendText(_ text: String) {
            let decoded = Array(text.utf8).withUnsafeBytes {
                ClientFrameDecoder.decode($0, limits: core.settings.limits)
            }
            core.receive(
                decoded, from: id, nowMilliseconds: harness.nowMilliseconds, receivedAt: MonotonicClock.nanoseconds())
        }

        func close() { core.close(id) }
    }
}

extension [[String: Any]] {
    /// The frames of one type, in order.
    func ofType(_ type: String) -> [[String: Any]] { filter { $0["type"] as? String == type } }
    var types: [String] { map { $0["type"] as? String ?? "?" } }
    var seqs: [Int] { ofType("message").map { $0["seq"] as? Int ?? -1 } }
}
