import SwitchboardSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A webhook receiver for the tests: HTTP/1.1 on 127.0.0.1, blocking sockets,
/// a thread per connection, keep-alive. `reply` decides each answer (status,
/// headers, body, delay); the receiver records every request, the connections
/// it accepted and how many requests were in progress at once (from the end
/// of a request to the end of its answer), in all and per path.
public final class TestReceiver: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        /// Names in lower case.
        public var headers: [String: String]
        public var body: String
        /// Which accepted connection carried it (0, 1, ...).
        public var connection: Int
        public var receivedAt: UInt64
    }

    public struct Reply: Sendable {
        public var status = 200
        public var headers: [(String, String)] = []
        /// The body, or `fillerBytes` of "x" when it is large.
        public var body = ""
        public var fillerBytes = 0
        public var delayMilliseconds = 0

        public init(
            status: Int = 200, headers: [(String, String)] = [], body: String = "", fillerBytes: Int = 0,
            delayMilliseconds: Int = 0
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.fillerBytes = fillerBytes
            self.delayMilliseconds = delayMilliseconds
        }

        public static let ok = Reply(body: "ok")
        public static func status(_ status: Int, body: String = "") -> Reply { Reply(status: status, body: body) }
    }

    private struct State {
        var requests: [Request] = []
        var acceptedConnections = 0
        var inProgress = 0
        var maxInProgress = 0
        var inProgressByPath: [String: Int] = [:]
        var maxInProgressByPath: [String: Int] = [:]
        var connectionFDs: Set<Int32> = []
        var threads: [NamedThread] = []
    }

    public let port: UInt16
    private let listener: Int32
    private let reply: @Sendable (Request, Int) -> Reply
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    private let acceptThread = Mutex<NamedThread?>(nil)

    /// `reply` gets each request and its index among all requests (0, 1, ...).
    public init(reply: @escaping @Sendable (Request, Int) -> Reply = { _, _ in .ok }) throws {
        Posix.ignoreSIGPIPE()
        listener = try Socket.listen(
            on: SocketAddress(host: "127.0.0.1", port: 0, family: .inet), reusePort: false, backlog: 64)
        port = Socket.localPort(listener)!
        self.reply = reply
        acceptThread.withLock { $0 = NamedThread.spawn(name: "test-receiver") { [self] in acceptLoop() } }
    }

    deinit { stop() }

    public var url: String { "http://127.0.0.1:\(port)" }

    public var requests: [Request] { state.withLock { $0.requests } }
    public var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }
    public var maxInProgress: Int { state.withLock { $0.maxInProgress } }
    public func maxInProgress(path: String) -> Int { state.withLock { $0.maxInProgressByPath[path] ?? 0 } }

    /// Waits until `count` requests have come, at most `seconds`; false if they did not.
    public func waitForRequests(_ count: Int, seconds: Double = 10) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + UInt64(seconds * 1e9)
        while requests.count < count {
            if MonotonicClock.nanoseconds() > deadline { return false }
            ThisProcess.sleep(milliseconds: 2)
        }
        return true
    }

    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        acceptThread.withLock { $0 }?.join()
        Posix.close(listener)
        let (fds, threads) = state.withLock { ($0.connectionFDs, $0.threads) }
        for fd in fds { _ = shutdown(fd, Int32(SHUT_RDWR)) }
        for thread in threads { thread.join() }
    }

    private func acceptLoop() {
        var poll = PollSet([listener])
        while !stopped.load(ordering: .acquiring) {
            guard (try? poll.wait(timeoutMilliseconds: 20)) ?? 0 > 0 else { continue }
            guard case .processed(let fd)? = try? Socket.accept(listener) else { continue }
            // Blocking from here on: one thread per connection reads and writes in turn.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            // Answers leave at once (no Nagle delay waiting for the client's delayed ACK).
            Socket.setNoDelay(fd)
            state.withLock { state in
                let connection = state.acceptedConnections
                state.acceptedConnections += 1
                state.connectionFDs.insert(fd)
                state.threads.append(
                    NamedThread.spawn(name: "test-receiver-c") { [self] in serve(fd, connection: connection) })
            }
        }
    }

    private func serve(_ fd: Int32, connection: Int) {
        var reader = RequestReader(fd: fd)
        while let (method, path, headers, body) = reader.next() {
            let request = Request(
                method: method, path: path, headers: headers, body: String(decoding: body, as: UTF8.self),
                connection: connection, receivedAt: MonotonicClock.nanoseconds())
            let index = state.withLock { state in
                state.requests.append(request)
                state.inProgress += 1
                state.maxInProgress = max(state.maxInProgress, state.inProgress)
                state.inProgressByPath[path, default: 0] += 1
                state.maxInProgressByPath[path] = max(
                    state.maxInProgressByPath[path] ?? 0, state.inProgressByPath[path]!)
                return state.requests.count - 1
            }
            let answer = reply(request, index)
            sleepUnlessStopped(milliseconds: answer.delayMilliseconds)
            // Out of progress before the answer is written: once it is, the client may send its
            // next request, which another thread could count before this one had left (a request
            // counted here is always in flight at the client, never the other way round).
            state.withLock { state in
                state.inProgress -= 1
                state.inProgressByPath[path]! -= 1
            }
            let sent = !stopped.load(ordering: .acquiring) && write(answer, to: fd)
            if !sent { break }
        }
        state.withLock { _ = $0.connectionFDs.remove(fd) }
        Posix.close(fd)
    }

    private func sleepUnlessStopped(milliseconds: Int) {
        var left = milliseconds
        while left > 0 && !stopped.load(ordering: .acquiring) {
            ThisProcess.sleep(milliseconds: min(left, 10))
            left -= 10
        }
    }

    /// False when the client went away before the whole answer was written.
    private func write(_ answer: Reply, to fd: Int32) -> Bool {
        let bodyCount = answer.fillerBytes > 0 ? answer.fillerBytes : answer.body.utf8.count
        var head = "HTTP/1.1 \(answer.status) Test\r\ncontent-length: \(bodyCount)\r\n"
        for (name, value) in answer.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        if answer.fillerBytes == 0 { return writeAll(fd, Array((head + answer.body).utf8)) }
        guard writeAll(fd, Array(head.utf8)) else { return false }
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var left = answer.fillerBytes
        while left > 0 {
            guard writeAll(fd, Array(chunk.prefix(left))) else { return false }
            left -= min(left, chunk.count)
        }
        return true
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }
}

/// Reads requests off a blocking socket: a head up to the blank line, then
/// `content-length` bytes of body.
private struct RequestReader {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    mutating func next() -> (method: String, path: String, headers: [String: String], body: [UInt8])? {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int? = nil
        while headEnd == nil {
            headEnd = buffer.firstRange(of: separator)?.upperBound
            if headEnd == nil && !fill() { return nil }
        }
        let lines = String(decoding: buffer[..<(headEnd! - 4)], as: UTF8.self).split(separator: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            headers[line[..<colon].lowercased()] = String(value)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < headEnd! + length {
            if !fill() { return nil }
        }
        let body = Array(buffer[headEnd!..<(headEnd! + length)])
        buffer.removeFirst(headEnd! + length)
        return (String(requestLine[0]), String(requestLine[1]), headers, body)
    }

    /// Reads more; false at the end of the connection.
    private mutating func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer += chunk.prefix(count)
            return true
        }
    }
}
