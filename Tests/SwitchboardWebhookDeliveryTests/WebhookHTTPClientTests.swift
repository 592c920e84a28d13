import SwitchboardSystem
import SwitchboardTestSupport
import SwitchboardWebhookDelivery
import SwitchboardWebhooks
import Synchronization
import Testing

/// The webhook HTTP client against a real receiver on 127.0.0.1.
@Suite struct WebhookHTTPClientTests {
    static let local = WebhookHTTPClient.Settings(
        connectTimeoutMilliseconds: 2000, timeoutMilliseconds: 5000, allowPrivateTargets: true)

    func post(_ url: String, body: String = #"{"n":1}"#) -> WebhookHTTPRequest {
        WebhookHTTPRequest(
            url: url,
            headers: [WebhookHeader("content-type", "application/json"), WebhookHeader("webhook-id", "evt_1")],
            body: body)
    }

    @Test func postsTheBodyAndHeadersExactly() throws {
        let receiver = try TestReceiver()
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let body = #"{"text":"héllo \"world\"","big":""# + String(repeating: "x", count: 5000) + #""}"#
        let response = client.send(post(receiver.url + "/hooks/in?token=abc", body: body))
        #expect(response.statusCode == 200)
        #expect(response.error == nil)
        #expect(response.responseHead == "ok")
        let request = try #require(receiver.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/hooks/in?token=abc")
        #expect(request.body == body)
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["webhook-id"] == "evt_1")
        // A body over 1 KiB without "Expect: 100-continue" (which would cost a second with many receivers).
        #expect(request.headers["expect"] == nil)
    }

    /// One transfer carries request after request, each body copied into
    /// memory it keeps: a long body, then shorter ones and an empty one, each
    /// arrives as itself, with nothing of the one before.
    @Test func eachBodyArrivesWholeAfterALongerOne() throws {
        let receiver = try TestReceiver()
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let bodies = [String(repeating: "a", count: 9000), "{\"n\":2}", "", String(repeating: "é", count: 2500), "z"]
        for body in bodies { #expect(client.send(post(receiver.url + "/b", body: body)).statusCode == 200) }
        #expect(receiver.requests.map(\.body) == bodies)
        #expect(receiver.requests.map { $0.headers["content-length"] } == bodies.map { String($0.utf8.count) })
    }

    /// The header lines are written into memory the transfer keeps: request
    /// after request, more lines and longer ones (past what it first held),
    /// then fewer and shorter, each request carries its own and nothing of
    /// the one before.
    @Test func eachRequestCarriesItsOwnHeadersAfterLongerOnes() throws {
        let receiver = try TestReceiver()
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let sets: [[WebhookHeader]] = [
            [WebhookHeader("webhook-id", "evt_1")],
            (1...12).map { WebhookHeader("x-h\($0)", String(repeating: "v\($0)", count: 60)) },
            [WebhookHeader("webhook-id", "evt_3"), WebhookHeader("x-h1", "short")],
            [],
        ]
        for headers in sets {
            let response = client.send(WebhookHTTPRequest(url: receiver.url + "/h", headers: headers, body: "{}"))
            #expect(response.statusCode == 200)
        }
        #expect(receiver.requests.count == sets.count)
        for (request, headers) in zip(receiver.requests, sets) {
            for header in headers { #expect(request.headers[header.name] == header.value) }
            let sent = Set(headers.map(\.name))
            let stale = request.headers.keys.filter { ($0.hasPrefix("x-") || $0 == "webhook-id") && !sent.contains($0) }
            #expect(stale.isEmpty, "headers of an earlier request: \(stale)")
            #expect(request.headers["expect"] == nil)
        }
    }

    /// The client remembers the last URL's target: requests to two receivers
    /// (and two paths of one), alternating and repeated, each reach their own
    /// receiver and path.
    @Test func eachRequestGoesToItsOwnURLWhenURLsAlternate() throws {
        let first = try TestReceiver()
        defer { first.stop() }
        let second = try TestReceiver()
        defer { second.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let urls = [
            first.url + "/one", first.url + "/one", second.url + "/two", first.url + "/three", second.url + "/two",
            second.url + "/four", first.url + "/one",
        ]
        for url in urls { #expect(client.send(post(url)).statusCode == 200) }
        #expect(first.requests.map(\.path) == ["/one", "/one", "/three", "/one"])
        #expect(second.requests.map(\.path) == ["/two", "/two", "/four"])
    }

    @Test func keepsTheConnectionForTheNextRequest() throws {
        let receiver = try TestReceiver()
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let responses = (0..<5).map { _ in client.send(post(receiver.url + "/a")) }
        #expect(responses.map(\.statusCode) == Array(repeating: 200, count: 5))
        #expect(responses.map(\.newConnections) == [1, 0, 0, 0, 0])
        #expect(receiver.acceptedConnections == 1)
        #expect(Set(receiver.requests.map(\.connection)) == [0])
    }

    @Test func doesNotFollowRedirects() throws {
        let receiver = try TestReceiver { request, _ in
            request.path == "/from" ? TestReceiver.Reply(status: 302, headers: [("location", "/to")]) : .ok
        }
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let response = client.send(post(receiver.url + "/from"))
        #expect(response.statusCode == 302)
        #expect(response.result == .answered(statusCode: 302, responseHead: ""))
        ThisProcess.sleep(milliseconds: 50)
        #expect(receiver.requests.map(\.path) == ["/from"])
    }

    @Test func stopsReadingAHugeBodyAfter64KiBAndKeepsTheStatus() throws {
        let receiver = try TestReceiver { _, _ in TestReceiver.Reply(fillerBytes: 10 * 1024 * 1024) }
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let response = client.send(post(receiver.url + "/huge"))
        #expect(response.statusCode == 200)
        #expect(response.error == nil)
        #expect(response.bodyCut)
        #expect(response.bodyBytesRead <= WebhookHTTPClient.maximumResponseBytes)
        #expect(response.responseHead == String(repeating: "x", count: 1024))
        #expect(response.result == .answered(statusCode: 200, responseHead: String(repeating: "x", count: 1024)))
    }

    @Test func readsABodyOfExactlyTheLimit() throws {
        let receiver = try TestReceiver { _, _ in
            TestReceiver.Reply(fillerBytes: WebhookHTTPClient.maximumResponseBytes)
        }
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let responses = (0..<2).map { _ in client.send(post(receiver.url)) }
        #expect(responses.map(\.bodyCut) == [false, false])
        #expect(responses.map(\.bodyBytesRead) == [65536, 65536])
        // Read to its end, the body leaves the connection fit for the next request.
        #expect(receiver.acceptedConnections == 1)
    }

    @Test func timesOutAtTheTimeout() throws {
        let receiver = try TestReceiver { _, _ in TestReceiver.Reply(body: "late", delayMilliseconds: 5000) }
        defer { receiver.stop() }
        var settings = Self.local
        settings.timeoutMilliseconds = 400
        let client = try WebhookHTTPClient(settings: settings)
        let started = MonotonicClock.nanoseconds()
        let response = client.send(post(receiver.url))
        let elapsed = Double(MonotonicClock.nanoseconds() - started) / 1e6
        #expect(response.statusCode == nil)
        guard case .timeout = response.error else {
            Issue.record("expected a timeout, got \(String(describing: response.error))")
            return
        }
        #expect(response.result.failure == .timeout)
        #expect(elapsed >= 390 && elapsed < 1500, "took \(elapsed) ms")
    }

    @Test func refusesPrivateTargetsUnlessAllowed() throws {
        let receiver = try TestReceiver()
        defer { receiver.stop() }
        var strict = Self.local
        strict.allowPrivateTargets = false
        let refused = try WebhookHTTPClient(settings: strict).send(post(receiver.url))
        #expect(refused.error == .refusedTarget(TargetAddress(parsing: "127.0.0.1")!))
        #expect(refused.error?.description == "target resolves to a loopback address (127.0.0.1)")
        #expect(refused.result.failure == .refusedTarget)
        // By name too: the address is checked when the socket opens, whatever the URL says.
        let byName = try WebhookHTTPClient(settings: strict).send(post("http://localhost:\(receiver.port)/"))
        #expect(byName.result.failure == .refusedTarget)
        #expect(receiver.acceptedConnections == 0)
        let allowed = try WebhookHTTPClient(settings: Self.local).send(post(receiver.url))
        #expect(allowed.statusCode == 200)
        #expect(receiver.acceptedConnections == 1)
    }

    @Test func reportsAClosedPortAsAConnectError() throws {
        let port = try closedPort()
        let response = try WebhookHTTPClient(settings: Self.local).send(post("http://127.0.0.1:\(port)/"))
        #expect(response.statusCode == nil)
        #expect(response.result.failure == .connectError)
    }

    @Test func refusesOtherProtocols() throws {
        let client = try WebhookHTTPClient(settings: Self.local)
        for url in ["file:///etc/passwd", "ftp://127.0.0.1/", "gopher://127.0.0.1/"] {
            #expect(client.send(post(url)).result.failure == .invalidEndpoint, "\(url)")
        }
    }

    @Test func runsRequestsSideBySide() throws {
        // Each answer waits until all six requests have come (5 s at most), then 300 ms: side by
        // side they end together, one after another they would take over five seconds.
        let arrived = Atomic<Int>(0)
        let receiver = try TestReceiver { _, _ in
            arrived.add(1, ordering: .relaxed)
            _ = waitUntil { arrived.load(ordering: .relaxed) >= 6 }
            return TestReceiver.Reply(body: "ok", delayMilliseconds: 300)
        }
        defer { receiver.stop() }
        let client = try WebhookHTTPClient(settings: Self.local)
        let started = MonotonicClock.nanoseconds()
        for tag in 0..<6 { client.start(post(receiver.url + "/\(tag)"), tag: tag) }
        var ended: [Int: WebhookHTTPResponse] = [:]
        while ended.count < 6 {
            for (tag, response) in client.poll(timeoutMilliseconds: 1000) { ended[tag] = response }
        }
        let elapsed = Double(MonotonicClock.nanoseconds() - started) / 1e6
        #expect(ended.values.allSatisfy { $0.statusCode == 200 })
        #expect(receiver.maxInProgress == 6)
        #expect(elapsed < 1200, "six 300 ms answers took \(elapsed) ms")
        #expect(client.inFlight == 0)
    }

    /// The thread's eventfd ends a wait that watches it, and only such a
    /// wait: signalled before a wait without it, it neither ends that wait
    /// early nor is lost, and the next wait with it ends at once.
    @Test func aWakeEndsOnlyAWaitThatWatchesItAndIsNotLost() throws {
        let client = try WebhookHTTPClient(settings: Self.local)
        let wake = try EventFD()
        defer { wake.close() }
        func waited(_ timeout: Int, _ wake: EventFD?) -> Double {
            let started = MonotonicClock.nanoseconds()
            #expect(client.poll(timeoutMilliseconds: timeout, wake: wake).isEmpty)
            return Double(MonotonicClock.nanoseconds() - started) / 1e6
        }
        #expect(waited(100, wake) >= 95, "nothing to wake it")
        wake.signal()
        #expect(waited(5000, wake) < 1000)
        #expect(waited(100, wake) >= 95, "the signal was taken")
        wake.signal()
        #expect(waited(200, nil) >= 195, "a wait without the eventfd")
        #expect(waited(0, nil) < 100)
        #expect(waited(5000, wake) < 1000, "the signal was kept")
        #expect(waited(100, wake) >= 95)
    }

    /// A port on 127.0.0.1 that nothing listens on (bound, then closed).
    private func closedPort() throws -> UInt16 {
        let fd = try Socket.listen(
            on: SocketAddress(host: "127.0.0.1", port: 0, family: .inet), reusePort: false, backlog: 1)
        let port = Socket.localPort(fd)!
        Posix.close(fd)
        return port
    }
}

extension AttemptResult {
    var failure: AttemptFailure? {
        if case .noAnswer(let failure, _) = self { return failure }
        return nil
    }
}
