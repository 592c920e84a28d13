import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 answer: status, headers in order, body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first header called `name` (any case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// What a buffer read so far holds.
    enum Parse {
        case incomplete
        case complete(HTTPResponse)
        case malformed(String)
    }

    /// Parses a response from `bytes`; `ended` says the peer closed, so a body
    /// without Content-Length ends there. Chunked bodies are refused: the
    /// gateway always sends Content-Length.
    static func parse(_ bytes: [UInt8], ended: Bool) -> Parse {
        guard let headEnd = WebSocketClient.headEnd(bytes) else {
            return ended ? .malformed("the answer ended in its head") : .incomplete
        }
        let lines = String(decoding: bytes[0..<(headEnd - 4)], as: UTF8.self).split(
            separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]),
            (100...599).contains(status)
        else { return .malformed("not an HTTP status line: \(lines[0].prefix(80))") }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .malformed("a header without a colon") }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append(
                (String(line[..<colon]), String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())))
        }
        var response = HTTPResponse(status: status, headers: headers, body: [])
        if response.header("Transfer-Encoding") != nil { return .malformed("a chunked answer (not supported)") }
        if let length = response.header("Content-Length") {
            guard let count = Int(length), count >= 0 else { return .malformed("Content-Length \(length)") }
            guard bytes.count - headEnd >= count else {
                return ended ? .malformed("the answer ended inside its body") : .incomplete
            }
            response.body = Array(bytes[headEnd..<(headEnd + count)])
            return .complete(response)
        }
        guard ended else { return .incomplete }
        response.body = Array(bytes[headEnd...])
        return .complete(response)
    }
}

/// A blocking HTTP/1.1 client for the gateway's plain endpoints (/readyz,
/// /metrics, the REST API): one request per connection (`Connection: close`),
/// every wait bounded by the timeout.
public enum HTTPClient {
    /// The error of a request given up because `abandon` said so.
    public static let abandoned = "abandoned"

    /// With `abandon`, asked every 20 ms while the request waits: once it says
    /// true, the connection is reset (what the kernel still holds to send is
    /// dropped, and the peer sees the reset at once) and `abandoned` is thrown.
    public static func request(
        _ method: String = "GET", _ path: String, port: UInt16, host: String = "127.0.0.1",
        headers: [(String, String)] = [], body: [UInt8]? = nil, timeoutSeconds: Double = 5,
        abandon: (() -> Bool)? = nil
    ) throws(DriveError) -> HTTPResponse {
        let deadline = DriveClock.monotonicSeconds() + timeoutSeconds
        let fd: Int32
        do {
            fd = try Socket.connect(to: SocketAddress(host: host, port: port, family: .inet))
        } catch {
            throw DriveError("\(method) \(path): \(error)")
        }
        var reset = false
        defer {
            if reset {
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            }
            Posix.close(fd)
        }
        func wait(_ events: PollSet.Events, _ what: String) throws(DriveError) {
            do {
                try Self.wait(fd, for: events, until: deadline, what: what, abandon: abandon)
            } catch {
                reset = error.description == abandoned
                throw error
            }
        }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + (body ?? [])
        try wait(.writable, "\(method) \(path): connect")
        do {
            try Socket.finishConnect(fd)
        } catch {
            throw DriveError("\(method) \(path): \(error)")
        }
        var sent = 0
        while sent < request.count {
            try wait(.writable, "\(method) \(path): send")
            let result = request.withUnsafeBytes { all in
                Result { () throws(SystemError) in try Socket.send(fd, UnsafeRawBufferPointer(rebasing: all[sent...])) }
            }
            guard case .success(let outcome) = result else { throw DriveError("\(method) \(path): send failed") }
            if case .processed(let count) = outcome { sent += count }
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            try wait(.readable, "\(method) \(path): answer")
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if count > 0 { received.append(contentsOf: chunk[0..<count]) }
            switch HTTPResponse.parse(received, ended: count <= 0) {
            case .incomplete: continue
            case .complete(let response): return response
            case .malformed(let reason): throw DriveError("\(method) \(path): \(reason)")
            }
        }
    }

    /// GET `path`'s body as text when it answers 200, or nil (refused, timed out, another status).
    public static func text(_ path: String, port: UInt16, timeoutSeconds: Double = 5) -> String? {
        guard let response = try? request("GET", path, port: port, timeoutSeconds: timeoutSeconds),
            response.status == 200
        else { return nil }
        return response.text
    }

    private static func wait(
        _ fd: Int32, for events: PollSet.Events, until deadline: Double, what: String, abandon: (() -> Bool)?
    ) throws(DriveError) {
        while true {
            if let abandon, abandon() { throw DriveError(abandoned) }
            let left = deadline - DriveClock.monotonicSeconds()
            guard left > 0 else { throw DriveError("\(what): timed out") }
            var poll = PollSet([fd])
            poll.watch(0, for: events)
            let slice = abandon == nil ? left : min(left, 0.02)
            if (try? poll.wait(timeoutMilliseconds: Int32(max(1, slice * 1000)))) ?? 0 > 0 { return }
        }
    }
}
