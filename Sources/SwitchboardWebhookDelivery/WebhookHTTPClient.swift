import SwitchboardHTTP
import SwitchboardSystem
import SwitchboardTLS
import SwitchboardWebhooks

/// POSTs webhooks over HTTP/1.1 and HTTPS: many requests at once on the
/// calling thread, each started with `start` and collected by `poll`, which
/// waits in one epoll set for their sockets. A connection whose answer was
/// read to its end waits in a pool, and the next request to the same origin
/// goes out on it (keep-alive); one request per connection at a time.
///
/// Every new connection's address is checked first (`TargetAddress`), so a
/// name that now resolves to a private address is refused now; redirects are
/// answers, never followed; no proxy; certificates always verified.
///
/// One client per thread, used only by it (docs/webhooks.md, "Why our own
/// HTTP client").
public final class WebhookHTTPClient {
    public struct Settings: Sendable, Equatable {
        public var connectTimeoutMilliseconds: Int
        /// The whole request, connecting included.
        public var timeoutMilliseconds: Int
        /// Lets requests reach loopback, private and link-local addresses (`webhooks.allow_private_targets`).
        public var allowPrivateTargets: Bool
        /// Open connections kept between requests, over all origins.
        public var maximumIdleConnections: Int
        /// A PEM file of the certificate authorities HTTPS receivers are
        /// checked against, instead of the system's (tests, private CAs).
        public var trustedCertificatesPath: String?

        public init(
            connectTimeoutMilliseconds: Int = 5000, timeoutMilliseconds: Int = 10_000,
            allowPrivateTargets: Bool = false,
            maximumIdleConnections: Int = 64, trustedCertificatesPath: String? = nil
        ) {
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.timeoutMilliseconds = timeoutMilliseconds
            self.allowPrivateTargets = allowPrivateTargets
            self.maximumIdleConnections = maximumIdleConnections
            self.trustedCertificatesPath = trustedCertificatesPath
        }
    }

    /// Response body bytes read at most: past them the request stops reading
    /// (the status line has decided already), so that a receiver cannot make
    /// us read without end.
    public static let maximumResponseBytes = 64 * 1024

    /// A request under way.
    private final class Exchange {
        let tag: Int
        let target: RequestTarget
        /// The request line, headers and body.
        let bytes: [UInt8]
        let startedAt: UInt64
        let connectDeadline: UInt64
        let deadline: UInt64
        var connection: ClientConnection?
        var lookup: Int?
        var addresses: [TargetAddress] = []
        var nextAddress = 0
        var refused: TargetAddress?
        var connectFailure: String?
        var newConnections = 0
        /// A kept-alive connection closed under it before any answer, and it went again on a new one.
        var retried = false

        init(tag: Int, target: RequestTarget, bytes: [UInt8], startedAt: UInt64, settings: Settings) {
            self.tag = tag
            self.target = target
            self.bytes = bytes
            self.startedAt = startedAt
            connectDeadline = startedAt + UInt64(max(0, settings.connectTimeoutMilliseconds)) * 1_000_000
            deadline = startedAt + UInt64(max(0, settings.timeoutMilliseconds)) * 1_000_000
        }

        /// Connecting: the lookup, the TCP connect and the TLS handshake, which the connect timeout bounds.
        var isConnecting: Bool { connection.map { !$0.isConnected || $0.tls?.isHandshakeComplete == false } ?? true }
    }

    private let settings: Settings
    private let epoll: Int32
    private let events = EpollEvents(capacity: 256)
    private var tlsContext: TLSClientContext?
    private var lookups: HostLookups?
    private var targets: [String: RequestTarget] = [:]
    private var lastTarget: (url: String, target: RequestTarget)?
    /// Names resolved lately, with when they stop being used.
    private var resolved: [String: (addresses: [TargetAddress], until: UInt64)] = [:]
    /// The lookup under way for each name.
    private var lookupsByHost: [String: Int] = [:]
    private var exchanges: [Int: Exchange] = [:]
    private var connections: [UInt64: ClientConnection] = [:]
    /// Idle connections, least recently used first.
    private var idle: [ClientConnection] = []
    private var nextConnectionID: UInt64 = 0
    /// Requests ended and not handed out yet.
    private var ended: [(tag: Int, response: WebhookHTTPResponse)] = []
    /// The wake eventfd epoll watches, while `poll` is given one.
    private var watchedWake: Int32?
    /// `send`'s own tags, far from any a caller of `start` would use.
    private var sendTag = Int.min
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private let cipherBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 16)

    private static let wakeTag = UInt64.max
    private static let resolvedNamesKeptNanoseconds: UInt64 = 60 * 1_000_000_000
    private static let lookupTag = UInt64.max - 1

    public init(settings: Settings) throws(WebhookHTTPError) {
        self.settings = settings
        do throws(SystemError) { epoll = try Epoll.create() } catch { throw .setup("\(error)") }
    }

    deinit {
        exchanges.removeAll()
        connections.removeAll()
        idle.removeAll()
        Posix.close(epoll)
        readBuffer.deallocate()
        cipherBuffer.deallocate()
    }

    /// Requests started and not yet collected.
    public var inFlight: Int { exchanges.count + ended.count }

    /// Starts a POST; `poll` gives its response back under `tag` (unique among those in flight).
    public func start(_ request: WebhookHTTPRequest, tag: Int) {
        precondition(exchanges[tag] == nil, "tag \(tag) is in flight already")
        let now = MonotonicClock.nanoseconds()
        let target: RequestTarget
        do throws(WebhookURLError) { target = try self.target(of: request.url) } catch {
            return fail(tag, .invalidURL("the endpoint's URL \(error.reason)"))
        }
        guard let bytes = Self.message(request, target: target) else {
            return fail(tag, .setup("a header name or value holds a character HTTP does not allow there"))
        }
        let exchange = Exchange(tag: tag, target: target, bytes: bytes, startedAt: now, settings: settings)
        exchanges[tag] = exchange
        if let connection = takeIdle(target.origin) {
            send(exchange, on: connection)
        } else {
            open(exchange)
        }
    }

    /// Moves the requests along: waits until one of their sockets is ready,
    /// `wake` is signalled, or `timeoutMilliseconds` pass (not at all when
    /// some have ended already), then returns the requests that have ended.
    public func poll(timeoutMilliseconds: Int, wake: EventFD? = nil) -> [(tag: Int, response: WebhookHTTPResponse)] {
        watch(wake)
        var wait = ended.isEmpty ? max(0, timeoutMilliseconds) : 0
        let now = MonotonicClock.nanoseconds()
        let next = nextDeadline()
        if let next {
            wait = min(wait, next > now ? Int((next - now + 999_999) / 1_000_000) : 0)
        }
        let count = (try? Epoll.wait(epoll, into: events, timeoutMilliseconds: Int32(clamping: wait))) ?? 0
        for index in 0..<count {
            let (mask, data) = events[index]
            switch data {
            case Self.wakeTag: wake?.drain()
            case Self.lookupTag: lookupsFinished()
            default:
                guard let connection = connections[data] else { continue }
                handle(connection, mask: mask)
            }
        }
        let after = MonotonicClock.nanoseconds()
        if let next, after >= next { expire(now: after) }
        defer { ended.removeAll(keepingCapacity: true) }
        return ended
    }

    /// One request from start to end, on the calling thread.
    public func send(_ request: WebhookHTTPRequest) -> WebhookHTTPResponse {
        sendTag += 1
        let tag = sendTag
        start(request, tag: tag)
        var others: [(tag: Int, response: WebhookHTTPResponse)] = []
        defer { ended += others }
        while true {
            for done in poll(timeoutMilliseconds: 1000) {
                if done.tag == tag { return done.response }
                others.append(done)
            }
        }
    }

    // MARK: - Connecting

    private func target(of url: String) throws(WebhookURLError) -> RequestTarget {
        // A busy endpoint's requests come in runs: comparing with the last URL costs a length check
        // and a memcmp, where the dictionary hashes the whole URL first.
        if let last = lastTarget, last.url == url { return last.target }
        let target: RequestTarget
        if let known = targets[url] {
            target = known
        } else {
            target = try RequestTarget(url: url)
            // Endpoints are few; a bound keeps a changing set of URLs from growing it without end.
            if targets.count >= 1024 { targets.removeAll() }
            targets[url] = target
        }
        lastTarget = (url, target)
        return target
    }

    private func open(_ exchange: Exchange) {
        let host = exchange.target.origin.host
        if let literal = exchange.target.literalAddress {
            exchange.addresses = [literal]
            return connectNext(exchange)
        }
        if let known = resolved[host], known.until > MonotonicClock.nanoseconds() {
            exchange.addresses = known.addresses
            return connectNext(exchange)
        }
        // Requests that need a connection to the same name at once wait for one lookup.
        if let underway = lookupsByHost[host] {
            exchange.lookup = underway
            return
        }
        let lookups: HostLookups
        if let existing = self.lookups {
            lookups = existing
        } else {
            do throws(SystemError) {
                lookups = try HostLookups()
                try Epoll.add(epoll, fd: lookups.signal.fd, events: Epoll.readable, data: Self.lookupTag)
            } catch {
                return finish(exchange, error: .setup("cannot start resolving host names: \(error)"))
            }
            self.lookups = lookups
        }
        let id = lookups.resolve(host)
        lookupsByHost[host] = id
        exchange.lookup = id
    }

    private func lookupsFinished() {
        guard let lookups else { return }
        for (id, result) in lookups.finished() {
            guard let host = lookupsByHost.first(where: { $0.value == id })?.key else { continue }
            lookupsByHost[host] = nil
            if case .success(let addresses) = result {
                // Kept as long as libcurl kept names (its default), each address still checked at every connection.
                if resolved.count >= 1024 { resolved.removeAll() }
                resolved[host] = (addresses, MonotonicClock.nanoseconds() + Self.resolvedNamesKeptNanoseconds)
            }
            for exchange in exchanges.values where exchange.lookup == id {
                exchange.lookup = nil
                switch result {
                case .success(let addresses):
                    exchange.addresses = addresses
                    connectNext(exchange)
                case .failure(let error):
                    let reason = if case .unresolvable(_, let reason) = error { reason } else { "\(error)" }
                    finish(exchange, error: .resolve("could not resolve host \(host): \(reason)"))
                }
            }
        }
    }

    /// Connects to the exchange's next allowed address, or ends it when none is left.
    private func connectNext(_ exchange: Exchange) {
        let origin = exchange.target.origin
        while exchange.nextAddress < exchange.addresses.count {
            let address = exchange.addresses[exchange.nextAddress]
            exchange.nextAddress += 1
            guard address.isAllowed(allowPrivate: settings.allowPrivateTargets) else {
                exchange.refused = address
                continue
            }
            let socketAddress = SocketAddress(
                host: address.description, port: UInt16(origin.port), family: address.isIPv6 ? .inet6 : .inet)
            let fd: Int32
            do throws(SystemError) {
                fd = try Socket.connect(to: socketAddress)
            } catch {
                exchange.connectFailure = Self.connectFailure(address, origin.port, error)
                continue
            }
            Socket.setNoDelay(fd)
            let tls: TLSConnection?
            do throws(TLSError) {
                tls =
                    origin.https
                    ? try tlsClientContext().connection(
                        to: origin.host, isAddress: exchange.target.literalAddress != nil) : nil
            } catch {
                Posix.close(fd)
                return finish(exchange, error: .tls("\(error)"))
            }
            nextConnectionID += 1
            let connection = ClientConnection(
                id: nextConnectionID, fd: fd, origin: origin, tls: tls, maximumBodyBytes: Self.maximumResponseBytes)
            do throws(SystemError) {
                try Epoll.add(epoll, fd: fd, events: Epoll.writable, data: connection.id)
            } catch {
                return finish(exchange, error: .setup("\(error)"))
            }
            connection.watched = Epoll.writable
            connections[connection.id] = connection
            connection.tag = exchange.tag
            exchange.connection = connection
            exchange.newConnections += 1
            return
        }
        if let failure = exchange.connectFailure {
            finish(exchange, error: .connect(failure))
        } else if let refused = exchange.refused {
            finish(exchange, error: .refusedTarget(refused))
        } else {
            finish(exchange, error: .connect("no address to connect to"))
        }
    }

    /// "connect to 192.0.2.1 port 443: Connection refused", whether the attempt failed at once or later.
    private static func connectFailure(_ address: TargetAddress, _ port: Int, _ error: SystemError) -> String {
        SystemError(call: "connect to \(address) port \(port)", errno: error.errno).description
    }

    private func tlsClientContext() throws(TLSError) -> TLSClientContext {
        if let tlsContext { return tlsContext }
        let made = try TLSClientContext(trustedCertificatesPath: settings.trustedCertificatesPath)
        tlsContext = made
        return made
    }

    // MARK: - Moving a request along

    private func send(_ exchange: Exchange, on connection: ClientConnection) {
        connection.tag = exchange.tag
        exchange.connection = connection
        do {
            try connection.queue(exchange.bytes)
            if connection.tls?.isHandshakeComplete == false {
                // A fresh TLS session starts its handshake at the first read.
                try drainReads(connection)
            }
            try flushAndWatch(connection)
        } catch {
            broke(connection, error)
        }
    }

    private func handle(_ connection: ClientConnection, mask: UInt32) {
        do {
            if !connection.isConnected {
                guard mask & (Epoll.writable | Epoll.error | Epoll.hangup) != 0 else { return }
                do throws(SystemError) {
                    try Socket.finishConnect(connection.fd)
                } catch {
                    return connectFailed(connection, error)
                }
                connection.isConnected = true
                guard let exchange = connection.tag.flatMap({ exchanges[$0] }) else { return close(connection) }
                return send(exchange, on: connection)
            }
            if mask & Epoll.writable != 0 { try flushAndWatch(connection) }
            if mask & (Epoll.readable | Epoll.hangup | Epoll.error | Epoll.peerHangup) != 0 {
                try drainReads(connection)
                if connections[connection.id] != nil { try flushAndWatch(connection) }
            }
        } catch {
            broke(connection, error)
        }
    }

    /// Reads until the socket has nothing more, feeding the answer; ends the
    /// exchange when the answer is complete or the receiver closed.
    private func drainReads(_ connection: ClientConnection) throws {
        while connections[connection.id] != nil {
            switch try connection.receive(into: readBuffer, scratch: cipherBuffer) {
            case .wouldBlock: return
            case .ended: return closedByReceiver(connection)
            case .bytes(let count):
                guard let exchange = connection.tag.flatMap({ exchanges[$0] }) else {
                    // An idle connection the receiver writes to: nothing of ours to read.
                    return close(connection)
                }
                connection.answerBytes += count
                let taken = try connection.reader.read(UnsafeRawBufferPointer(rebasing: readBuffer[..<count]))
                if connection.reader.isComplete {
                    // Bytes past the answer, an answer cut at the limit, or a request not written
                    // whole: what the connection carries next is unknown, so it is not reused.
                    let keep =
                        connection.reader.keepsConnection && taken == count && !connection.reader.bodyCut
                        && !connection.hasUnsentBytes
                    return finish(exchange, error: nil, keep: keep)
                }
            }
        }
    }

    private func flushAndWatch(_ connection: ClientConnection) throws {
        let more = try connection.flush()
        let wanted = Epoll.readable | Epoll.peerHangup | (more ? Epoll.writable : 0)
        if wanted != connection.watched {
            try Epoll.modify(epoll, fd: connection.fd, events: wanted, data: connection.id)
            connection.watched = wanted
        }
    }

    private func closedByReceiver(_ connection: ClientConnection) {
        guard let exchange = connection.tag.flatMap({ exchanges[$0] }) else { return close(connection) }
        if connection.answerBytes == 0 && connection.wasReused && !exchange.retried {
            // The receiver closed a kept-alive connection as this request went out on it (its idle
            // timeout): nothing was answered, so the request goes again on a connection of its own.
            exchange.retried = true
            exchange.connection = nil
            close(connection)
            exchange.nextAddress = 0
            exchange.addresses.isEmpty ? open(exchange) : connectNext(exchange)
            return
        }
        do throws(HTTPResponseReader.Failure) {
            try connection.reader.endOfInput()
            finish(exchange, error: nil, keep: false)
        } catch {
            finish(exchange, error: .transfer("\(error)"))
        }
    }

    private func connectFailed(_ connection: ClientConnection, _ error: SystemError) {
        guard let exchange = connection.tag.flatMap({ exchanges[$0] }) else { return close(connection) }
        exchange.connectFailure = Self.connectFailure(
            exchange.addresses[exchange.nextAddress - 1], exchange.target.origin.port, error)
        exchange.connection = nil
        close(connection)
        connectNext(exchange)
    }

    /// A socket or TLS error on `connection`: its request ends with it.
    private func broke(_ connection: ClientConnection, _ error: any Error) {
        guard let exchange = connection.tag.flatMap({ exchanges[$0] }) else { return close(connection) }
        if let failure = error as? HTTPResponseReader.Failure {
            return finish(exchange, error: .transfer(failure.description))
        }
        if error is TLSError && exchange.isConnecting {
            return finish(exchange, error: .tls("\(error)"))
        }
        if connection.answerBytes == 0 && connection.wasReused && !exchange.retried {
            return closedByReceiver(connection)
        }
        finish(exchange, error: error is TLSError ? .tls("\(error)") : .transfer("\(error)"))
    }

    // MARK: - Ending

    /// Ends the exchange: its response is queued for `poll`, its connection
    /// kept for the next request to the origin or closed.
    private func finish(_ exchange: Exchange, error: WebhookHTTPError?, keep: Bool = false) {
        exchanges[exchange.tag] = nil
        let reader = exchange.connection?.reader
        let status = reader?.statusCode
        ended.append(
            (
                exchange.tag,
                WebhookHTTPResponse(
                    statusCode: status, error: error,
                    responseHead: reader.map { ResponseHead.text(from: $0.bodyHead) } ?? "",
                    bodyBytesRead: reader?.bodyBytesRead ?? 0, bodyCut: reader?.bodyCut ?? false,
                    durationMilliseconds: Int((MonotonicClock.nanoseconds() - exchange.startedAt) / 1_000_000),
                    newConnections: exchange.newConnections)
            ))
        guard let connection = exchange.connection else { return }
        exchange.connection = nil
        connection.tag = nil
        if keep && error == nil { makeIdle(connection) } else { close(connection) }
    }

    private func fail(_ tag: Int, _ error: WebhookHTTPError) {
        ended.append(
            (
                tag,
                WebhookHTTPResponse(
                    statusCode: nil, error: error, responseHead: "", bodyBytesRead: 0, bodyCut: false,
                    durationMilliseconds: 0, newConnections: 0)
            ))
    }

    /// Ends the requests whose time ran out.
    private func expire(now: UInt64) {
        let late = exchanges.values.filter {
            now >= $0.deadline || ($0.isConnecting && now >= $0.connectDeadline)
        }
        for exchange in late {
            let connecting = exchange.isConnecting && now >= exchange.connectDeadline && now < exchange.deadline
            let milliseconds = (now - exchange.startedAt) / 1_000_000
            finish(
                exchange,
                error: .timeout(
                    connecting
                        ? "connecting to \(exchange.target.origin.host) timed out after \(milliseconds) ms"
                        : "timed out after \(milliseconds) ms without a whole answer"))
        }
    }

    private func nextDeadline() -> UInt64? {
        var next: UInt64?
        for exchange in exchanges.values {
            let deadline = exchange.isConnecting ? min(exchange.connectDeadline, exchange.deadline) : exchange.deadline
            next = min(next ?? deadline, deadline)
        }
        return next
    }

    // MARK: - The pool

    private func takeIdle(_ origin: Origin) -> ClientConnection? {
        guard let index = idle.lastIndex(where: { $0.origin == origin }) else { return nil }
        let connection = idle.remove(at: index)
        connection.wasReused = true
        return connection
    }

    private func makeIdle(_ connection: ClientConnection) {
        idle.append(connection)
        if idle.count > settings.maximumIdleConnections { close(idle[0]) }
    }

    private func close(_ connection: ClientConnection) {
        connections[connection.id] = nil
        if let index = idle.firstIndex(where: { $0 === connection }) { idle.remove(at: index) }
        // Closing the descriptor (the connection's deinit) takes it out of the epoll set.
        Epoll.remove(epoll, fd: connection.fd)
    }

    /// Watches `wake` while `poll` is given it, and only then: a signal for a
    /// wait that does not watch it stays for the next one that does.
    private func watch(_ wake: EventFD?) {
        guard watchedWake != wake?.fd else { return }
        if let fd = watchedWake { Epoll.remove(epoll, fd: fd) }
        watchedWake = nil
        if let wake, (try? Epoll.add(epoll, fd: wake.fd, events: Epoll.readable, data: Self.wakeTag)) != nil {
            watchedWake = wake.fd
        }
    }

    // MARK: - The request's bytes

    /// "POST path HTTP/1.1", Host, the caller's headers, Content-Length, the
    /// body; nil when a header is not a field name and value as HTTP spells them (a line break in
    /// one would let it write headers, or a request, of its own).
    private static func message(_ request: WebhookHTTPRequest, target: RequestTarget) -> [UInt8]? {
        var bytes: [UInt8] = []
        var headLength = 64 + target.path.utf8.count + target.hostHeader.utf8.count
        for header in request.headers { headLength += header.name.utf8.count + header.value.utf8.count + 4 }
        bytes.reserveCapacity(headLength + request.body.utf8.count)
        append("POST ", to: &bytes)
        append(target.path, to: &bytes)
        append(" HTTP/1.1\r\nHost: ", to: &bytes)
        append(target.hostHeader, to: &bytes)
        append("\r\n", to: &bytes)
        for header in request.headers {
            guard HTTPFieldSyntax.isFieldName(header.name), HTTPFieldSyntax.isFieldValue(header.value) else {
                return nil
            }
            append(header.name, to: &bytes)
            append(": ", to: &bytes)
            append(header.value, to: &bytes)
            append("\r\n", to: &bytes)
        }
        append("Content-Length: ", to: &bytes)
        append(String(request.body.utf8.count), to: &bytes)
        append("\r\n\r\n", to: &bytes)
        append(request.body, to: &bytes)
        return bytes
    }

    /// Appends `text`'s UTF-8 in one copy.
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }
}
