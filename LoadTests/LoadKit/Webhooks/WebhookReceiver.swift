import CSystem
import SwitchboardSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A fast local webhook receiver for benchmarks and chaos runs
/// (`loadtest webhook-receiver`): one epoll loop on one thread serving
/// any number of keep-alive HTTP/1.1 connections. Every POST is a webhook:
/// its Standard Webhooks signature is checked (with a secret), its event
/// recorded in a `WebhookLedger` (and the journal, before the answer
/// leaves), and it is answered as the `WebhookStatusPlan` says (200 by
/// default, 401 for a bad signature). `GET /stats` answers the ledger's
/// summary as JSON; `POST /reset` answers it and starts a new window
/// (latency and rates count from there).
///
/// A connection's bytes are parsed where they were read; a partial request
/// waits for the rest. Answers of one epoll batch are written after the
/// batch's journal lines, each connection's in one write.
public final class WebhookReceiver: @unchecked Sendable {
    public struct Options: Sendable {
        public var port: UInt16
        public var verifier: WebhookVerifier?
        public var plan = WebhookStatusPlan()
        public var journalPath: String?

        public init(port: UInt16) {
            self.port = port
        }
    }

    final class Connection {
        let fd: Int32
        var input: [UInt8] = []
        var output: [UInt8] = []
        var written = 0
        var closeAfterWrite = false
        var continueSent = false
        var watchingWrites = false
        var queued = false

        init(fd: Int32) {
            self.fd = fd
            input.reserveCapacity(4096)
        }
    }

    public let options: Options
    /// The port it listens on (the one asked for, or the kernel's choice for 0).
    public let port: UInt16
    private let listener: Int32
    private let epoll: Int32
    private let wake: EventFD
    private let stopping = Atomic<Bool>(false)
    private let ended = Mutex<WebhookReceiverSummary?>(nil)
    // The loop thread's own state.
    private var ledger: WebhookLedger
    private var connections: [Connection?] = []
    private var journal: WebhookJournalWriter?
    private var dirty: [Connection] = []
    private var responses: [Int: [UInt8]] = [:]
    /// `options.verifier` with its key made ready once (this loop's own).
    private let verifier: WebhookVerifier.Prepared?

    private static let listenerTag = UInt64.max
    private static let wakeTag = UInt64.max - 1

    /// Listens on 127.0.0.1:`options.port` (SO_REUSEADDR: a receiver started
    /// again takes the port back at once) and opens the journal.
    public init(options: Options) throws(DriveError) {
        self.options = options
        do {
            listener = try Socket.listen(
                on: SocketAddress(host: "127.0.0.1", port: options.port, family: .inet), reusePort: false,
                backlog: 1024)
            epoll = try Epoll.create()
            wake = try EventFD()
            try Epoll.add(epoll, fd: listener, events: Epoll.readable, data: Self.listenerTag)
            try Epoll.add(epoll, fd: wake.fd, events: Epoll.readable, data: Self.wakeTag)
        } catch {
            throw DriveError("webhook receiver on 127.0.0.1:\(options.port): \(error)")
        }
        port = Socket.localPort(listener) ?? options.port
        ledger = WebhookLedger(startedMicros: UnixClock.nowMicroseconds(), signaturesChecked: options.verifier != nil)
        if let verifier = options.verifier {
            guard let prepared = verifier.prepared() else {
                throw DriveError("webhook receiver: OpenSSL could not set up HMAC-SHA256 for the secret")
            }
            self.verifier = prepared
        } else {
            verifier = nil
        }
        journal = try options.journalPath.map { path throws(DriveError) in try WebhookJournalWriter(path: path) }
    }

    deinit {
        for connection in connections.compactMap({ $0 }) { Posix.close(connection.fd) }
        Posix.close(listener)
        Posix.close(epoll)
        wake.close()
    }

    /// Serves until `stop`; returns the final summary. Call it on one thread.
    @discardableResult
    public func run() -> WebhookReceiverSummary {
        let events = EpollEvents(capacity: 512)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while !stopping.load(ordering: .relaxed) {
            let count = (try? Epoll.wait(epoll, into: events, timeoutMilliseconds: 500)) ?? 0
            for index in 0..<count {
                let (mask, data) = events[index]
                switch data {
                case Self.listenerTag: acceptAll()
                case Self.wakeTag: wake.drain()
                default:
                    guard Int(data) < connections.count, let connection = connections[Int(data)] else { continue }
                    if mask & (Epoll.readable | Epoll.hangup | Epoll.error | Epoll.peerHangup) != 0 {
                        read(connection, buffer: &buffer)
                    }
                    if mask & Epoll.writable != 0 { queue(connection) }
                }
            }
            journal?.flush()
            let batch = dirty
            dirty.removeAll(keepingCapacity: true)
            for connection in batch {
                connection.queued = false
                write(connection)
            }
        }
        journal?.flush()
        let summary = ledger.summary(now: UnixClock.nowMicroseconds())
        ended.withLock { $0 = summary }
        return summary
    }

    /// What `run` returned, once it has.
    public var finalSummary: WebhookReceiverSummary? { ended.withLock { $0 } }

    /// Ends `run` (from any thread).
    public func stop() {
        stopping.store(true, ordering: .relaxed)
        wake.signal()
    }

    private func acceptAll() {
        while true {
            guard case .processed(let fd) = (try? Socket.accept(listener)) ?? .wouldBlock else { return }
            Socket.setNoDelay(fd)
            do {
                try Epoll.add(epoll, fd: fd, events: Epoll.readable | Epoll.peerHangup, data: UInt64(fd))
            } catch {
                Posix.close(fd)
                continue
            }
            if Int(fd) >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 64 - connections.count))
            }
            connections[Int(fd)] = Connection(fd: fd)
        }
    }

    private func queue(_ connection: Connection) {
        guard !connection.queued else { return }
        connection.queued = true
        dirty.append(connection)
    }

    private func read(_ connection: Connection, buffer: inout [UInt8]) {
        var ended = false
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(connection.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                connection.input.append(contentsOf: buffer[0..<count])
                if count < buffer.count { break }
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN { break }
            ended = true
            break
        }
        handle(connection, now: UnixClock.nowMicroseconds())
        if ended {
            connection.closeAfterWrite = true
            connection.input.removeAll()
        }
        if ended || !connection.output.isEmpty { queue(connection) }
    }

    /// Answers every whole request the connection's input holds.
    private func handle(_ connection: Connection, now: Int64) {
        var offset = 0
        parsing: while offset < connection.input.count && !connection.closeAfterWrite {
            switch WebhookRequestParser.parse(connection.input, from: offset) {
            case .incomplete(let expectsContinue):
                if expectsContinue && !connection.continueSent {
                    connection.output.append(contentsOf: Self.continueLine)
                    connection.continueSent = true
                }
                break parsing
            case .complete(let request, let end):
                connection.continueSent = false
                answer(request, in: connection, now: now)
                offset = end
                if !request.keepAlive { connection.closeAfterWrite = true }
            case .malformed(let status, _):
                ledger.countRequest(malformed: true)
                connection.output.append(contentsOf: response(status, close: true))
                connection.closeAfterWrite = true
                offset = connection.input.count
            }
        }
        if offset >= connection.input.count {
            connection.input.removeAll(keepingCapacity: connection.input.capacity <= 1 << 20)
        } else if offset > 0 {
            connection.input.removeFirst(offset)
        }
    }

    private func answer(_ request: ReceivedRequest, in connection: Connection, now: Int64) {
        let input = connection.input
        let method = input[request.method]
        let target = input[request.target]
        let close = !request.keepAlive
        if method.elementsEqual(Self.get) && target.elementsEqual(Self.statsPath) {
            ledger.countRequest()
            connection.output.append(contentsOf: json(ledger.summary(now: now).json.text, close: close))
        } else if method.elementsEqual(Self.post) && target.elementsEqual(Self.resetPath) {
            ledger.countRequest()
            let summary = ledger.summary(now: now)
            ledger.reset(at: now)
            connection.output.append(contentsOf: json(summary.json.text, close: close))
        } else if method.elementsEqual(Self.post) {
            guard let idRange = request.webhookID, !idRange.isEmpty else {
                ledger.countRequest(malformed: true)
                connection.output.append(contentsOf: response(400, close: close))
                return
            }
            let id = input[idRange]
            let body = input[request.body]
            var signature = SignatureCheck.unchecked
            if let verifier {
                signature = .invalid
                if let timestamp = request.webhookTimestamp, let header = request.webhookSignature,
                    verifier.verify(id: id, timestamp: input[timestamp], body: body, header: input[header])
                {
                    signature = .valid
                }
            }
            let status = ledger.record(
                id: id, createdAt: WebhookTime.createdAt(body: body),
                timestamp: request.webhookTimestamp.flatMap { WebhookTime.seconds(input[$0]) }, signature: signature,
                arrival: now, plan: options.plan)
            journal?.append(id: id, status: status, signature: signature)
            connection.output.append(contentsOf: response(status, close: close))
        } else {
            ledger.countRequest()
            connection.output.append(contentsOf: response(404, close: close))
        }
    }

    private func write(_ connection: Connection) {
        while connection.written < connection.output.count {
            let count = connection.output.withUnsafeBytes {
                Glibc.write(connection.fd, $0.baseAddress! + connection.written, $0.count - connection.written)
            }
            if count > 0 {
                connection.written += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && errno == EAGAIN {
                if !connection.watchingWrites { watchWrites(connection, true) }
                return
            }
            close(connection)
            return
        }
        connection.output.removeAll(keepingCapacity: true)
        connection.written = 0
        if connection.watchingWrites { watchWrites(connection, false) }
        if connection.closeAfterWrite { close(connection) }
    }

    private func watchWrites(_ connection: Connection, _ on: Bool) {
        var event = epoll_event()
        event.events = Epoll.readable | Epoll.peerHangup | (on ? Epoll.writable : 0)
        event.data.u64 = UInt64(connection.fd)
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, connection.fd, &event)
        connection.watchingWrites = on
    }

    private func close(_ connection: Connection) {
        Epoll.remove(epoll, fd: connection.fd)
        Posix.close(connection.fd)
        if Int(connection.fd) < connections.count, connections[Int(connection.fd)] === connection {
            connections[Int(connection.fd)] = nil
        }
    }

    /// An answer without a body (cached per status).
    private func response(_ status: Int, close: Bool) -> [UInt8] {
        let key = close ? -status : status
        if let cached = responses[key] { return cached }
        let bytes = Array(
            ("HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Length: 0\r\n"
                + (close ? "Connection: close\r\n" : "") + "\r\n").utf8)
        responses[key] = bytes
        return bytes
    }

    private func json(_ text: String, close: Bool) -> [UInt8] {
        Array(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(text.utf8.count)\r\n"
                + (close ? "Connection: close\r\n" : "") + "\r\n" + text).utf8)
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 404: return "Not Found"
        case 408: return "Request Timeout"
        case 410: return "Gone"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return "Status"
        }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    private static let get = Array("GET".utf8)
    private static let post = Array("POST".utf8)
    private static let statsPath = Array("/stats".utf8)
    private static let resetPath = Array("/reset".utf8)
}
