import SwitchboardJSON
import SwitchboardSystem
import Testing

@testable import LoadKit

#if canImport(Glibc)
import Glibc
#endif

@Suite("Webhook receiver (loadtest webhook-receiver)")
struct WebhookReceiverTests {
    /// The Standard Webhooks reference vector (standard-webhooks/spec, svix's libraries).
    static let referenceSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let referenceID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let referenceTimestamp = "1614265330"
    static let referenceBody = #"{"test": 2432232314}"#
    static let referenceSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

    @Test("the verifier reproduces the standard's reference signature and refuses changes")
    func verifier() throws {
        let verifier = try #require(WebhookVerifier(secret: Self.referenceSecret))
        let id = Array(Self.referenceID.utf8)
        let timestamp = Array(Self.referenceTimestamp.utf8)
        let body = Array(Self.referenceBody.utf8)
        // The receiver's loop checks with the key made ready once: the same answer every time.
        let prepared = try #require(verifier.prepared())
        func verifies(id: [UInt8], timestamp: [UInt8], body: [UInt8], header: [UInt8]) -> Bool {
            let plain = verifier.verify(id: id, timestamp: timestamp, body: body, header: header)
            #expect(prepared.verify(id: id[...], timestamp: timestamp[...], body: body[...], header: header) == plain)
            return plain
        }
        #expect(
            verifier.signature(id: Self.referenceID, timestamp: Self.referenceTimestamp, body: body)
                == Self.referenceSignature)
        #expect(verifies(id: id, timestamp: timestamp, body: body, header: Array(Self.referenceSignature.utf8)))
        // A rotation's two signatures, and entries of another version, in any order.
        let rotated = "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= v2,xyz \(Self.referenceSignature)"
        #expect(verifies(id: id, timestamp: timestamp, body: body, header: Array(rotated.utf8)))
        // Any change to the id, the timestamp or the body, or a signature of another version, fails.
        #expect(
            !verifies(
                id: id + [49], timestamp: timestamp, body: body, header: Array(Self.referenceSignature.utf8)))
        #expect(
            !verifies(
                id: id, timestamp: Array("1614265331".utf8), body: body, header: Array(Self.referenceSignature.utf8)))
        #expect(
            !verifies(
                id: id, timestamp: timestamp, body: body + [32], header: Array(Self.referenceSignature.utf8)))
        let v2 = "v2," + Self.referenceSignature.dropFirst(3)
        #expect(!verifies(id: id, timestamp: timestamp, body: body, header: Array(v2.utf8)))
        #expect(!verifies(id: id, timestamp: timestamp, body: body, header: Array("v1,!!!".utf8)))
        // The right HMAC spelled otherwise than the standard's padded base64 is not its signature.
        let unpadded = String(Self.referenceSignature.dropLast())
        #expect(!verifies(id: id, timestamp: timestamp, body: body, header: Array(unpadded.utf8)))
        #expect(
            !verifies(id: id, timestamp: timestamp, body: body, header: Array((Self.referenceSignature + "x").utf8)))
        #expect(!verifies(id: id, timestamp: timestamp, body: body, header: []))
        // Another key fails; secrets without the prefix or with bad base64 are refused.
        let other = try #require(WebhookVerifier(secret: "whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldY"))
        #expect(!other.verify(id: id, timestamp: timestamp, body: body, header: Array(Self.referenceSignature.utf8)))
        #expect(WebhookVerifier(secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw") == nil)
        #expect(WebhookVerifier(secret: "whsec_") == nil)
        #expect(WebhookVerifier(secret: "whsec_***") == nil)
    }

    @Test("created_at and webhook-timestamp are read as the protocol spells them")
    func times() {
        let body =
            Array(
                #"{"id":"evt_1","type":"message.created","created_at":"2026-11-24T10:00:00.123Z","workspace_id":"w","#
                    .utf8) + Array(#""data":{"message":{"created_at":"2026-11-24T09:59:59.000Z"}}}"#.utf8)
        // 2026-11-24 is day 20,781 of the epoch.
        let expected: Int64 = (20781 * 86400 + 36000) * 1_000_000 + 123_000
        let parsed = WebhookTime.createdAt(body: body)
        #expect(parsed == expected)
        #expect(WebhookTime.microseconds(rfc3339: Array("1970-01-01T00:00:01Z".utf8)) == 1_000_000)
        #expect(WebhookTime.microseconds(rfc3339: Array("1970-01-01T00:00:00.5+00:00".utf8)) == 500_000)
        #expect(WebhookTime.microseconds(rfc3339: Array("1970-01-01T00:00:00.123456Z".utf8)) == 123_456)
        #expect(WebhookTime.microseconds(rfc3339: Array("1970-01-01T00:00:00.Z".utf8)) == nil)
        #expect(WebhookTime.microseconds(rfc3339: Array("1970-01-01T00:00:00+01:00".utf8)) == nil)
        #expect(WebhookTime.microseconds(rfc3339: Array("1970-13-01T00:00:00Z".utf8)) == nil)
        #expect(WebhookTime.createdAt(body: Array(#"{"id":"x"}"#.utf8)) == nil)
        #expect(WebhookTime.seconds(Array("1614265330".utf8)) == 1_614_265_330)
        #expect(WebhookTime.seconds(Array("16x".utf8)) == nil)
        #expect(WebhookTime.seconds([]) == nil)
        // Printing and parsing agree, across leap days and the millisecond.
        for micros: Int64 in [0, 951_782_400_123_000, 1_796_083_200_999_000, 4_107_542_399_001_000] {
            let text = WebhookTime.rfc3339(microseconds: micros)
            #expect(WebhookTime.microseconds(rfc3339: Array(text.utf8)) == micros, "\(text)")
        }
        #expect(WebhookTime.rfc3339(microseconds: 951_782_400_123_000) == "2000-02-29T00:00:00.123Z")
    }

    @Test("requests are parsed from a stream: pipelined, split, keep-alive, Expect, and refusals")
    func parser() throws {
        let first =
            "POST /webhook HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nWebhook-Id: evt_1\r\n"
            + "webhook-timestamp:  17 \r\nWEBHOOK-SIGNATURE: v1,abc\r\n\r\nhello"
        let second = "GET /stats HTTP/1.1\r\nConnection: close\r\n\r\n"
        let bytes = Array((first + second).utf8)
        guard case .complete(let request, let end) = WebhookRequestParser.parse(bytes, from: 0) else {
            Issue.record("the first request is whole")
            return
        }
        #expect(end == first.utf8.count)
        #expect(String(decoding: bytes[request.method], as: UTF8.self) == "POST")
        #expect(String(decoding: bytes[request.target], as: UTF8.self) == "/webhook")
        #expect(String(decoding: bytes[request.body], as: UTF8.self) == "hello")
        #expect(request.keepAlive)
        #expect(request.webhookID.map { String(decoding: bytes[$0], as: UTF8.self) } == "evt_1")
        #expect(request.webhookTimestamp.map { String(decoding: bytes[$0], as: UTF8.self) } == "17")
        #expect(request.webhookSignature.map { String(decoding: bytes[$0], as: UTF8.self) } == "v1,abc")
        guard case .complete(let stats, let last) = WebhookRequestParser.parse(bytes, from: end) else {
            Issue.record("the pipelined request is whole")
            return
        }
        #expect(last == bytes.count)
        #expect(!stats.keepAlive)
        #expect(stats.body.isEmpty)
        // Every split of the first request but the whole is incomplete.
        let firstBytes = Array(first.utf8)
        for cut in 0..<firstBytes.count {
            #expect(
                WebhookRequestParser.parse(Array(firstBytes[0..<cut]), from: 0) == .incomplete(expectsContinue: false))
        }
        // A head asking for 100 Continue says so while its body is missing.
        let expecting = Array("POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8)
        #expect(WebhookRequestParser.parse(expecting, from: 0) == .incomplete(expectsContinue: true))
        // HTTP/1.0 closes unless asked to keep alive.
        let old = Array("POST / HTTP/1.0\r\nContent-Length: 0\r\n\r\n".utf8)
        guard case .complete(let oldRequest, _) = WebhookRequestParser.parse(old, from: 0) else {
            Issue.record("an HTTP/1.0 request is whole")
            return
        }
        #expect(!oldRequest.keepAlive)
        let refusals: [(String, Int)] = [
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
            ("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n", 413),
            ("POST / HTTP/2.0\r\n\r\n", 505),
            ("POST /\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\n: x\r\n\r\n", 400),
        ]
        for (text, status) in refusals {
            guard case .malformed(let answered, _) = WebhookRequestParser.parse(Array(text.utf8), from: 0) else {
                Issue.record("not refused: \(text)")
                continue
            }
            #expect(answered == status, "\(text)")
        }
        let huge = Array("GET / HTTP/1.1\r\nX: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 20_000)
        #expect(WebhookRequestParser.parse(huge, from: 0) == .malformed(status: 431, reason: "head too large"))
    }

    @Test("the ledger counts deliveries, retries, duplicates and bad signatures, and times first acceptances")
    func ledger() {
        var ledger = WebhookLedger(startedMicros: 1_000_000, signaturesChecked: true)
        let plan = WebhookStatusPlan(sequence: [500], perEvent: true)
        func record(_ id: String, _ signature: SignatureCheck = .valid, at: Int64, created: Int64? = 1_000_000) -> Int {
            ledger.record(
                id: Array(id.utf8), createdAt: created, timestamp: at / 1_000_000, signature: signature, arrival: at,
                plan: plan)
        }
        // Every event is refused once (500), then accepted; a bad signature is 401 whatever the plan.
        #expect(record("evt_a", at: 1_010_000) == 500)
        #expect(record("evt_a", at: 1_020_000) == 200)
        #expect(record("evt_a", at: 1_030_000) == 200)
        #expect(record("evt_b", .invalid, at: 1_040_000) == 401)
        #expect(record("evt_b", at: 1_050_000) == 200)
        let long = String(repeating: "e", count: 40)
        #expect(record(long, at: 1_060_000, created: nil) == 500)
        #expect(record(long, at: 1_070_000, created: nil) == 200)
        let summary = ledger.summary(now: 2_000_000)
        #expect(summary.events == 7)
        #expect(summary.unique == 3)
        #expect(summary.delivered == 3)
        #expect(summary.retries == 3)
        #expect(summary.duplicates == 1)
        #expect(summary.badSignatures == 1)
        #expect(summary.withoutCreatedAt == 1)
        #expect(summary.answered == [500: 2, 200: 4, 401: 1])
        // Latency from created_at (1.0 s) to the first 200: 20 ms and 50 ms.
        #expect(summary.latencyCount == 2)
        #expect(summary.latencyMaxMs.map { ($0 - 50).magnitude < 0.1 } == true)
        // 7 webhooks from 1.01 s to 1.07 s: 6 intervals in 60 ms.
        #expect(summary.requestsPerSecond.map { ($0 - 100).magnitude < 0.01 } == true)
        // The request order (not per event) and an empty plan.
        #expect(WebhookStatusPlan(sequence: [503, 500]).status(request: 1, arrival: 0) == 500)
        #expect(WebhookStatusPlan(sequence: [503, 500]).status(request: 2, arrival: 0) == 200)
        #expect(WebhookStatusPlan().status(request: 0, arrival: 5) == 200)
        #expect(WebhookStatusPlan.parse("500, 503,200") == [500, 503, 200])
        #expect(WebhookStatusPlan.parse("500,99") == nil)
        #expect(WebhookStatusPlan.parse("") == nil)
        // A reset starts the window; the counts go on.
        ledger.reset(at: 3_000_000)
        let after = ledger.summary(now: 4_000_000)
        #expect(after.latencyCount == 0 && after.windowEvents == 0 && after.requestsPerSecond == nil)
        #expect(after.windowSeconds == 1 && after.delivered == 3)
    }

    @Test("the summary's JSON carries every figure and reads back")
    func summaryJSON() throws {
        var ledger = WebhookLedger(startedMicros: 0, signaturesChecked: false)
        for index in 0..<10 {
            _ = ledger.record(
                id: Array("evt_\(index)".utf8), createdAt: 0, timestamp: nil, signature: .unchecked,
                arrival: Int64(index + 1) * 1000, plan: WebhookStatusPlan())
        }
        let summary = ledger.summary(now: 1_000_000)
        let json = summary.json
        #expect(json["kind"]?.stringValue == "webhook-receiver")
        #expect(json["unique"]?.doubleValue == 10)
        #expect(json["signatures_checked"]?.boolValue == false)
        #expect(json["answered"]?["200"]?.doubleValue == 10)
        // HdrHistogram keeps 3 significant digits.
        #expect(json["latency_ms"]?["p50"]?.doubleValue.map { ($0 - 5).magnitude < 0.01 } == true)
        #expect(json["requests_per_s"]?.doubleValue == 1000)
        let parsed = try JSONParser.parse(json.text)
        #expect(WebhookReceiverSummary(json: parsed) == WebhookReceiverSummary(json: json))
        #expect(WebhookReceiverSummary(json: parsed)?.delivered == 10)
        #expect(WebhookReceiverSummary(json: ["kind": "other"]) == nil)
    }

    @Test("the journal says which events were accepted, with duplicates and bad signatures")
    func journal() {
        let journal = WebhookJournal(
            text: "evt_a 500 ok\nevt_a 200 ok\nevt_b 401 bad\nevt_b 200 ok\nevt_a 200 ok\nevt_c 200 none\nbroken\n")
        #expect(journal.accepted == ["evt_a", "evt_b", "evt_c"])
        #expect(journal.lines == 6)
        #expect(journal.duplicates == 1)
        #expect(journal.badSignatures == 1)
        #expect(journal.refused == 2)
        #expect(journal.missing(["evt_c", "evt_d", "evt_a"]) == ["evt_d"])
    }

    @Test("a receiver on a real socket: signed webhooks, 100 Continue, /stats, /reset and its journal")
    func receiverOverSockets() throws {
        let journalPath = "/tmp/sb-webhook-journal-\(getpid()).txt"
        defer { _ = unlink(journalPath) }
        var options = WebhookReceiver.Options(port: 0)
        options.verifier = WebhookVerifier(secret: Self.referenceSecret)
        options.plan = WebhookStatusPlan(sequence: [503], perEvent: true)
        options.journalPath = journalPath
        let receiver = try WebhookReceiver(options: options)
        let thread = NamedThread.spawn(name: "wh-test") { receiver.run() }
        defer {
            receiver.stop()
            thread.join()
        }
        var sender = WebhookSender(port: receiver.port, seconds: 0.3)
        sender.connections = 2
        sender.verifier = options.verifier
        let counts = sender.run()
        // Each event is new: every answer is the plan's first, 503.
        #expect(counts.requests > 0 && counts.errors == 0, "\(counts.firstError)")
        #expect(counts.statuses == [503: counts.requests])
        // The same event again is accepted; then a duplicate; a wrong signature is 401.
        let body = Array(Self.referenceBody.utf8)
        func post(_ signature: String) throws -> Int {
            try HTTPClient.request(
                "POST", "/webhook", port: receiver.port,
                headers: [
                    ("webhook-id", Self.referenceID), ("webhook-timestamp", Self.referenceTimestamp),
                    ("webhook-signature", signature),
                ], body: body
            ).status
        }
        #expect(try post(Self.referenceSignature) == 503)
        #expect(try post(Self.referenceSignature) == 200)
        #expect(try post(Self.referenceSignature) == 200)
        #expect(try post("v1,AAAA") == 401)
        let stats = try HTTPClient.request("GET", "/stats", port: receiver.port)
        #expect(stats.status == 200)
        let summary = try #require(WebhookReceiverSummary(json: try JSONParser.parse(stats.text)))
        #expect(summary.delivered == 1)
        #expect(summary.duplicates == 2)
        #expect(summary.badSignatures == 1)
        #expect(summary.events == counts.requests + 4)
        #expect(summary.staleTimestamps == 4)
        // Expect: 100-continue gets its interim answer before the body is sent.
        let fd = try Socket.connect(to: SocketAddress(host: "127.0.0.1", port: receiver.port, family: .inet))
        defer { Posix.close(fd) }
        var poll = PollSet([fd])
        poll.watch(0, for: .writable)
        _ = try poll.wait(timeoutMilliseconds: 2000)
        let head = Array(
            "POST /webhook HTTP/1.1\r\nwebhook-id: evt_continue\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
                .utf8)
        _ = head.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        #expect(Self.readText(fd).hasPrefix("HTTP/1.1 100 Continue\r\n\r\n"))
        _ = Array("{}".utf8).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        #expect(Self.readText(fd).hasPrefix("HTTP/1.1 401 "))
        // A reset answers the summary so far and starts a new window.
        let reset = try HTTPClient.request("POST", "/reset", port: receiver.port)
        #expect(WebhookReceiverSummary(json: try JSONParser.parse(reset.text))?.windowEvents == counts.requests + 5)
        let fresh = try #require(HTTPClient.text("/stats", port: receiver.port))
        #expect(WebhookReceiverSummary(json: try JSONParser.parse(fresh))?.windowEvents == 0)
        #expect(try HTTPClient.request("GET", "/other", port: receiver.port).status == 404)
        // Every webhook is in the journal, written before its answer.
        let journal = WebhookJournal.read(journalPath)
        #expect(journal.lines == counts.requests + 5)
        #expect(journal.accepted == [Self.referenceID])
        #expect(journal.duplicates == 1)
    }

    private static func readText(_ fd: Int32) -> String {
        var poll = PollSet([fd])
        poll.watch(0, for: .readable)
        guard (try? poll.wait(timeoutMilliseconds: 2000)) == 1 else { return "" }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }
}
