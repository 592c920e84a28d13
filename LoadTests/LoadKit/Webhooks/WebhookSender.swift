import SwitchboardJSON
import SwitchboardSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `loadtest webhook-sender`: what a receiver sustains. C keep-alive
/// connections, each on a thread of its own, each sending one signed webhook
/// and waiting for its answer before the next (as a dispatcher does with one
/// request in flight per connection), for S seconds. Each webhook is a new
/// event (its own id) shaped like a `message.created` body of about B bytes,
/// `created_at` the moment it is sent.
public struct WebhookSender: Sendable {
    public var port: UInt16
    public var seconds: Double
    public var connections = 8
    public var bodyBytes = 600
    public var verifier: WebhookVerifier?

    public init(port: UInt16, seconds: Double) {
        self.port = port
        self.seconds = seconds
    }

    public struct Counts: Sendable {
        public var requests = 0
        public var statuses: [Int: Int] = [:]
        public var errors = 0
        public var firstError = ""
        public var seconds = 0.0

        public var perSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }

        public var json: JSONValue {
            var statuses = JSONObject()
            for (status, count) in self.statuses.sorted(by: { $0.key < $1.key }) {
                statuses[String(status)] = .int(count)
            }
            return [
                "kind": "webhook-sender", "requests": .int(requests),
                "seconds": .double(PythonFormat.round(seconds, 3)),
                "per_s": .double(PythonFormat.round(perSecond, 1)), "statuses": .object(statuses),
                "errors": .int(errors), "first_error": .string(firstError),
            ]
        }
    }

    final class Totals: Sendable {
        let counts = Mutex(Counts())
    }

    public func run() -> Counts {
        let totals = Totals()
        // Ids unique to this run, so that a receiver that saw another run counts these as new events.
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let start = DriveClock.monotonicSeconds()
        let deadline = start + seconds
        let threads = (0..<connections).map { index in
            NamedThread.spawn(name: "wh-send-\(index)") { [self] in
                let counts = connection(index, run: run, until: deadline)
                totals.counts.withLock { all in
                    all.requests += counts.requests
                    all.errors += counts.errors
                    if all.firstError.isEmpty { all.firstError = counts.firstError }
                    for (status, count) in counts.statuses { all.statuses[status, default: 0] += count }
                }
            }
        }
        for thread in threads { thread.join() }
        var counts = totals.counts.withLock { $0 }
        counts.seconds = DriveClock.monotonicSeconds() - start
        return counts
    }

    /// One connection's requests until `deadline` (connecting again after an error).
    private func connection(_ index: Int, run: String, until deadline: Double) -> Counts {
        var counts = Counts()
        var fd: Int32 = -1
        var number = 0
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let padding = String(repeating: "x", count: max(0, bodyBytes - 420))
        defer { if fd >= 0 { Posix.close(fd) } }
        while DriveClock.monotonicSeconds() < deadline {
            if fd < 0 {
                guard let opened = Self.open(port: port) else {
                    counts.errors += 1
                    if counts.firstError.isEmpty { counts.firstError = "connect: \(String(cString: strerror(errno)))" }
                    DriveClock.sleep(seconds: 0.1)
                    continue
                }
                fd = opened
            }
            number += 1
            let request = self.request(id: "evt_\(run)_\(index)_\(number)", padding: padding)
            guard Self.sendAll(fd, request), let status = Self.readAnswer(fd, buffer: &buffer) else {
                counts.errors += 1
                if counts.firstError.isEmpty { counts.firstError = "request: \(String(cString: strerror(errno)))" }
                Posix.close(fd)
                fd = -1
                continue
            }
            counts.requests += 1
            counts.statuses[status, default: 0] += 1
        }
        return counts
    }

    func request(id: String, padding: String) -> [UInt8] {
        let now = UnixClock.nowMicroseconds()
        let body = Array(
            (#"{"id":"\#(id)","type":"message.created","created_at":"\#(WebhookTime.rfc3339(microseconds: now))","#
                + #""workspace_id":"00000000-0000-4000-8000-000000000000","data":{"message":{"session_id":"#
                + #""00000000-0000-4000-8000-000000000001","seq":1,"id":"00000000-0000-4000-8000-000000000002","#
                + #""client_msg_id":"c1","kind":"text","body":"\#(padding)","sender":{"id":"v","role":"visitor","#
                + #""name":null},"created_at":"\#(WebhookTime.rfc3339(microseconds: now))"},"session":{"#
                + #""id":"00000000-0000-4000-8000-000000000001","version":1}}}"#).utf8)
        let timestamp = String(now / 1_000_000)
        var head =
            "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\nwebhook-id: \(id)\r\nwebhook-timestamp: \(timestamp)\r\n"
        if let verifier {
            head += "webhook-signature: \(verifier.signature(id: id, timestamp: timestamp, body: body))\r\n"
        }
        return Array((head + "\r\n").utf8) + body
    }

    private static func open(port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            Posix.close(fd)
            return nil
        }
        Socket.setNoDelay(fd)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = send(fd, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                done += n
            }
            return true
        }
    }

    /// The status of one answer with a Content-Length body (read and dropped); nil on an error or a close.
    private static func readAnswer(_ fd: Int32, buffer: inout [UInt8]) -> Int? {
        var received: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return nil }
            received.append(contentsOf: buffer[0..<n])
            switch HTTPResponse.parse(received, ended: false) {
            case .incomplete: continue
            case .malformed: return nil
            case .complete(let response):
                // The receiver answers one request at a time and always with Content-Length.
                return response.status
            }
        }
    }
}

/// `loadtest webhook-sender PORT SECONDS [...]`: prints one JSON line of counts.
public enum WebhookSenderDriver {
    public static let usage = """
        usage: loadtest webhook-sender PORT SECONDS [--connections C] [--secret whsec_...] [--body-bytes B]

        What a webhook receiver on 127.0.0.1:PORT sustains: C keep-alive connections (8), each
        on a thread, each sending one webhook and waiting for its answer before the next, for
        SECONDS. Every webhook is a new event id with a body of about B bytes (600) shaped
        like message.created, its created_at the moment it is sent, signed with --secret
        (Standard Webhooks) when given. Prints one JSON line: requests, per_s, statuses, errors.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        BenchMain.run(arguments, usage: usage, tag: "webhook-sender", parse: parse) { sender, _ in
            let counts = sender.run()
            print(counts.json.text)
            return counts.requests > 0
        }
    }

    static func parse(_ arguments: [String]) throws(DriverFlags.UsageError) -> WebhookSender {
        let flags = try DriverFlags(
            arguments, options: ["connections", "secret", "body-bytes"], switchNames: ["check"])
        guard flags.positional.count == 2, let port = UInt16(flags.positional[0]),
            let seconds = Double(flags.positional[1]), seconds > 0
        else { throw DriverFlags.UsageError(description: "needs PORT and SECONDS") }
        var sender = WebhookSender(port: port, seconds: seconds)
        sender.connections = try flags.int("connections", default: sender.connections)
        sender.bodyBytes = try flags.int("body-bytes", default: sender.bodyBytes)
        guard (1...1024).contains(sender.connections), (0...1_000_000).contains(sender.bodyBytes) else {
            throw DriverFlags.UsageError(description: "--connections must be 1 to 1,024, --body-bytes 0 to 1,000,000")
        }
        if let secret = flags.string("secret") {
            guard let verifier = WebhookVerifier(secret: secret) else {
                throw DriverFlags.UsageError(description: "--secret must be whsec_ and the key in base64")
            }
            sender.verifier = verifier
        }
        return sender
    }
}
