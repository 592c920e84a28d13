import Foundation
import SwitchboardAuth
import SwitchboardSystem

/// A chat client for tests: a raw client (a socket, or an in-memory
/// connection) speaking `/v1/ws`, with JSON through Foundation (not the
/// gateway's codec, so it checks it).
final class ChatClient {
    let raw: any ClientStream
    private(set) var welcome: [String: Any] = [:]
    /// Frames read while looking for another one, kept in order.
    private var backlog: [[String: Any]] = []
    private(set) var closeCode: Int?

    /// Connects and upgrades; `token` nil skips `hello`.
    convenience init(port: UInt16, token: String?, timeoutSeconds: Int = 10, receiveBuffer: Int32? = nil) throws {
        try self.init(
            RawClient(port: port, timeoutSeconds: timeoutSeconds, receiveBuffer: receiveBuffer), token: token)
    }

    /// Upgrades `raw` and, with a `token`, says `hello`.
    init(_ raw: any ClientStream, token: String?) throws {
        self.raw = raw
        let head = raw.upgrade(path: "/v1/ws", extraHeaders: "Sec-WebSocket-Protocol: switchboard.v1\r\n")
        guard head.hasPrefix("HTTP/1.1 101 ") else { throw TestFailure("upgrade refused: \(head)") }
        if let token {
            send(["type": "hello", "token": token])
            let reply = try next()
            guard reply["type"] as? String == "welcome" else { throw TestFailure("expected welcome, got \(reply)") }
            welcome = reply
        }
    }

    func send(_ object: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: object)
        raw.send(RawClient.maskedFrame(opcode: 1, payload: Array(data)))
    }

    func sendText(_ text: String) {
        raw.send(RawClient.maskedFrame(opcode: 1, payload: Array(text.utf8)))
    }

    /// The next JSON frame; answers pings; throws on close or timeout.
    func next() throws -> [String: Any] {
        if !backlog.isEmpty { return backlog.removeFirst() }
        while true {
            guard let frame = raw.readFrame() else { throw TestFailure("connection ended or timed out") }
            switch frame.opcode {
            case 1:
                guard let object = try JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any] else {
                    throw TestFailure("not a JSON object: \(String(decoding: frame.payload, as: UTF8.self))")
                }
                return object
            case 9:
                raw.send(RawClient.maskedFrame(opcode: 10, payload: frame.payload))
            case 8:
                closeCode = frame.payload.count >= 2 ? Int(frame.payload[0]) << 8 | Int(frame.payload[1]) : 1005
                throw TestFailure("closed with \(closeCode!)")
            default:
                continue
            }
        }
    }

    /// The next frame of `type`, keeping the others for later `next()` calls.
    func next(_ type: String) throws -> [String: Any] {
        if let index = backlog.firstIndex(where: { $0["type"] as? String == type }) {
            return backlog.remove(at: index)
        }
        while true {
            let frame = try readOne()
            if frame["type"] as? String == type { return frame }
            backlog.append(frame)
        }
    }

    private func readOne() throws -> [String: Any] {
        let saved = backlog
        backlog = []
        defer { backlog = saved + backlog }
        return try next()
    }

    /// Sends a request and returns its reply (the frame carrying the same ref).
    func request(_ object: [String: Any]) throws -> [String: Any] {
        let ref = "r\(UInt32.random(in: 0...UInt32.max))"
        var object = object
        object["ref"] = ref
        send(object)
        if let index = backlog.firstIndex(where: { $0["ref"] as? String == ref }) { return backlog.remove(at: index) }
        while true {
            let frame = try readOne()
            if frame["ref"] as? String == ref { return frame }
            backlog.append(frame)
        }
    }

    /// Reads until the server's close frame; returns its code (nil on timeout).
    func waitForClose() -> Int? {
        while closeCode == nil {
            do { _ = try next() } catch { break }
        }
        return closeCode
    }

    /// Frames already read and not yet taken.
    var pending: [[String: Any]] { backlog }
    func takePending() -> [[String: Any]] {
        defer { backlog = [] }
        return backlog
    }
}

/// Tokens for tests, signed with `ChatFixture.secret`.
enum TestTokens {
    static func make(
        role: Role, workspace: String, sub: String, name: String? = nil, ttl: Int64 = 3600, issuedAgo: Int64 = 0,
        secret: String = ChatFixture.secret
    ) -> String {
        let now = UnixClock.nowSeconds() - issuedAgo
        return TokenMinter.mint(
            TokenClaims(
                subject: sub, role: role, workspaceID: workspace, name: name, issuedAt: now, expiresAt: now + ttl),
            secret: secret)
    }
}
