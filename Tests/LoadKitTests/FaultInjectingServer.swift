import Foundation
import SwitchboardWebSocket
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A minimal stand-in for the gateway that speaks just enough of the
/// protocol for a `conversations` run of one session, and breaks its promise
/// on purpose for the second connection (the operator): it skips seq 3 (a
/// gap), sends seq 5 twice (a duplicate), sends seq 8 before seq 7 (a
/// reorder), and holds seq 10 back for `delay` (a latency outlier).
/// The other `Fault`s keep deliveries faithful and break one thing instead.
/// With `nodes` > 1 it listens on that many ports sharing one state: a
/// cluster whose nodes pass every message on, as the gateway's must.
/// Like the gateway, it keeps every message for a `join`'s replay (seqs
/// after `since_seq`) and acks a repeated `client_msg_id` as a duplicate of
/// the stored one, broadcasting nothing.
/// Blocking sockets, one thread per connection: simple beats fast here.
final class FaultInjectingServer: @unchecked Sendable {
    static let sessionID = "00000000-0000-4000-8000-0000000000aa"
    /// One port per node; `port` is the first's.
    let ports: [UInt16]
    var port: UInt16 { ports[0] }
    private let listeners: [Int32]
    private let state = Mutex(State())
    private let delayMicroseconds: UInt32
    private let fault: Fault

    enum Fault {
        /// Seq 3 skipped, 5 twice, 8 before 7, 10 held back: on the operator's deliveries.
        case deliveries
        /// The fourth send is answered with the third send's ack again, so
        /// the counts of sends and acks still match.
        case repeatedAck
        /// After the fourth send, an `error` frame that answers no send.
        case strayError
        /// After the fourth send, a masked text frame (server frames never are).
        case maskedFrame
        /// Seq 40 is stored and broadcast, then its sender's connection is
        /// closed with 1001 (a node shutting down) before its ack and its own
        /// copy go out; its unread sends are never stored.
        case goingAway
        /// As `goingAway`, but the connection just ends: no close frame (EOF).
        case connectionDrop
        /// As `goingAway`, but a rejoin's replay leaves seq 40 out: a message
        /// lost across the reconnect.
        case losesOneAcrossReconnect
        /// As `goingAway`, but a rejoin's replay starts three seqs before
        /// `since_seq`, bringing again what the participant had.
        case replaysWhatItHad
        /// As `goingAway`, with close code 1008: no reason to reconnect.
        case policyClose
        /// As `goingAway`, and every listener closes: the node never comes back.
        case goneForGood

        /// The faults that close seq 40's sender.
        var closesSender: Bool {
            switch self {
            case .goingAway, .connectionDrop, .losesOneAcrossReconnect, .replaysWhatItHad, .policyClose, .goneForGood:
                true
            case .deliveries, .repeatedAck, .strayError, .maskedFrame: false
            }
        }
    }

    /// The seq after which the closing faults close its sender.
    static let closeAtSeq: Int64 = 40

    private struct State {
        /// Connections joined to the session (by `session.create` or `join`), in join order.
        var connections: [Int32] = []
        /// The node, and the upgrade's Host header, of each connection in `connections`, in hello order.
        var greeted: [(node: Int, host: String)] = []
        /// Set, under the lock, when a listener's accept thread has closed it.
        var listenerClosed: [Bool] = []
        var nextSeq: Int64 = 1
        var heldSeven: [UInt8]?
        var previousAck = ""
        /// Every message frame, by seq - 1, for a join's replay.
        var log: [[UInt8]] = []
        /// The seq stored for each client_msg_id.
        var stored: [String: Int64] = [:]
        var duplicateSends = 0
        /// Connections a fault closed: their threads stop reading.
        var severed: Set<Int32> = []
    }

    init(delayMilliseconds: UInt32, fault: Fault = .deliveries, nodes: Int = 1) throws {
        delayMicroseconds = delayMilliseconds * 1000
        self.fault = fault
        var listeners: [Int32] = []
        var ports: [UInt16] = []
        for _ in 0..<nodes {
            do {
                let (fd, port) = try Self.openListener()
                listeners.append(fd)
                ports.append(port)
            } catch {
                for fd in listeners { Glibc.close(fd) }
                throw error
            }
        }
        self.listeners = listeners
        self.ports = ports
        state.withLock { $0.listenerClosed = Array(repeating: false, count: nodes) }
        for node in 0..<nodes { Thread.detachNewThread { [self] in acceptLoop(node) } }
    }

    /// Who said hello, in order (the visitor first, then its operators): which node and Host.
    var greeted: [(node: Int, host: String)] { state.withLock { $0.greeted } }

    /// Sends whose client_msg_id was already stored: acked as duplicates.
    var duplicateSends: Int { state.withLock { $0.duplicateSends } }

    /// Messages stored.
    var storedCount: Int { state.withLock { $0.log.count } }

    /// A listening socket on 127.0.0.1 and the port the system gave it.
    private static func openListener() throws -> (Int32, UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0, listen(fd, 64) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else {
            Glibc.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Wakes the accept threads, which close the listeners themselves: closing
    /// one here could let its thread accept on the number once it is reused.
    /// (Both under the lock, so a listener already closed is never shut down.)
    func stop() {
        state.withLock { state in
            for (node, listener) in listeners.enumerated() where !state.listenerClosed[node] {
                shutdown(listener, Int32(SHUT_RDWR))
            }
        }
    }

    private func acceptLoop(_ node: Int) {
        let listener = listeners[node]
        defer {
            state.withLock { state in
                state.listenerClosed[node] = true
                Glibc.close(listener)
            }
        }
        while true {
            let fd = accept(listener, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // the harness the test starts must not inherit it
                Thread.detachNewThread { [self] in serve(fd, node: node) }
            } else if errno != EINTR && errno != ECONNABORTED {
                return
            }
        }
    }

    private func serve(_ fd: Int32, node: Int) {
        // Forgotten before it is closed, under the lock `broadcast` writes under:
        // tests run in parallel in one process, and a closed descriptor's number
        // is soon another test's socket (a PostgreSQL connection got a WebSocket
        // frame this way: "invalid frontend message type 129").
        defer {
            state.withLock {
                $0.connections.removeAll { $0 == fd }
                $0.severed.remove(fd)
            }
            Glibc.close(fd)
        }
        var buffer: [UInt8] = []
        guard let (key, host) = readHead(fd, &buffer) else { return }
        let accept = WebSocketHandshake.acceptValue(forKey: key)
        writeAll(
            fd,
            Array(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
                    .utf8))
        while let text = readFrame(fd, &buffer), !state.withLock({ $0.severed.contains(fd) }) {
            guard let frame = try? JSONSerialization.jsonObject(with: Data(text)) as? [String: Any],
                let type = frame["type"] as? String
            else { return }
            switch type {
            case "hello":
                state.withLock { $0.greeted.append((node, host)) }
                reply(fd, #"{"type":"welcome","conn_id":"c1","heartbeat_s":25}"#)
            case "session.create":
                state.withLock { $0.connections.append(fd) }
                reply(
                    fd,
                    #"{"type":"session","ref":"setup","session":{"title":"t","id":"\#(Self.sessionID)","last_seq":0}}"#)
            case "join":
                join(fd, since: (frame["since_seq"] as? NSNumber)?.int64Value ?? 0)
            case "send":
                broadcast(from: fd, frame)
            default:
                break
            }
        }
    }

    /// `joined`, the replay after `since`, and only then live messages: all
    /// under the lock `broadcast` writes under, so none comes between.
    private func join(_ fd: Int32, since: Int64) {
        state.withLock { state in
            let last = state.nextSeq - 1
            reply(
                fd,
                #"{"ref":"setup","type":"joined","session_id":"\#(Self.sessionID)","last_seq":\#(last),"truncated":false}"#
            )
            var from = max(since, 0) + 1
            if fault == .replaysWhatItHad { from = max(from - 3, 1) }
            if from <= last {
                for seq in from...last where !(fault == .losesOneAcrossReconnect && seq == Self.closeAtSeq) {
                    writeAll(fd, state.log[Int(seq) - 1])
                }
            }
            state.connections.append(fd)
        }
    }

    private func broadcast(from sender: Int32, _ frame: [String: Any]) {
        let ref = frame["ref"] as? String ?? ""
        let id = frame["client_msg_id"] as? String ?? ""
        let body = frame["body"] as? String ?? ""
        state.withLock { state in
            if let seq = state.stored[id] {
                state.duplicateSends += 1
                reply(
                    sender,
                    #"{"type":"ack","ref":"\#(ref)","session_id":"\#(Self.sessionID)","client_msg_id":"\#(id)","seq":\#(seq),"id":"m\#(seq)","duplicate":true}"#
                )
                return
            }
            let seq = state.nextSeq
            state.nextSeq += 1
            state.stored[id] = seq
            let ack =
                #"{"type":"ack","ref":"\#(ref)","session_id":"\#(Self.sessionID)","client_msg_id":"\#(id)","seq":\#(seq),"id":"m\#(seq)","duplicate":false}"#
            let severs = fault.closesSender && seq == Self.closeAtSeq
            if severs {
                // Stored, but the connection goes before its ack and its own copy do.
                sever(sender, state: &state)
            } else {
                reply(sender, fault == .repeatedAck && seq == 4 ? state.previousAck : ack)
            }
            state.previousAck = ack
            if fault == .strayError && seq == 4 {
                reply(sender, #"{"type":"error","code":"internal","message":"injected"}"#)
            }
            if fault == .maskedFrame && seq == 4 {
                // "{}" masked with a zero key: FIN + text, MASK + length 2, key, payload.
                writeAll(sender, [0x81, 0x82, 0, 0, 0, 0, UInt8(ascii: "{"), UInt8(ascii: "}")])
            }
            let message = Self.encode(
                #"{"session_id":"\#(Self.sessionID)","type":"message","seq":\#(seq),"client_msg_id":"\#(id)","kind":"text","body":"\#(body)","sender":{"id":"x","role":"visitor"}}"#
            )
            state.log.append(message)
            for (index, fd) in state.connections.enumerated() {
                guard index == 1, fault == .deliveries else {
                    writeAll(fd, message)
                    continue
                }
                switch seq {
                case 3: continue
                case 5: writeAll(fd, message + message)
                case 7: state.heldSeven = message
                case 8: writeAll(fd, message + (state.heldSeven ?? []))
                case 10:
                    usleep(delayMicroseconds)
                    writeAll(fd, message)
                default: writeAll(fd, message)
                }
            }
        }
    }

    /// Closes `fd` as the fault says (a close frame with 1001 or 1008, or
    /// none), stops broadcasting to it and reading from it; `goneForGood`
    /// also closes every listener.
    private func sever(_ fd: Int32, state: inout State) {
        switch fault {
        case .connectionDrop: break
        case .policyClose: writeAll(fd, [0x88, 0x02, 0x03, 0xF0])  // 1008
        default: writeAll(fd, [0x88, 0x02, 0x03, 0xE9])  // 1001
        }
        shutdown(fd, Int32(SHUT_RDWR))
        state.connections.removeAll { $0 == fd }
        state.severed.insert(fd)
        if fault == .goneForGood {
            for (node, listener) in listeners.enumerated() where !state.listenerClosed[node] {
                shutdown(listener, Int32(SHUT_RDWR))
            }
        }
    }

    private func reply(_ fd: Int32, _ text: String) {
        writeAll(fd, Self.encode(text))
    }

    static func encode(_ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else {
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        return frame + payload
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    private func fill(_ fd: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { return false }
        buffer += chunk[0..<n]
        return true
    }

    /// Reads the upgrade request; returns its Sec-WebSocket-Key and Host.
    private func readHead(_ fd: Int32, _ buffer: inout [UInt8]) -> (String, String)? {
        while true {
            if let end = buffer.indices.dropFirst(3).first(where: {
                buffer[$0 - 3..<$0 + 1].elementsEqual([13, 10, 13, 10])
            }) {
                let head = String(decoding: buffer[0...end], as: UTF8.self)
                buffer.removeFirst(end + 1)
                let lines = head.split(separator: "\r\n")
                func header(_ prefix: String) -> String? {
                    let line = lines.first { $0.lowercased().hasPrefix(prefix) }
                    return line.map { $0.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces) }
                }
                guard let key = header("sec-websocket-key:") else { return nil }
                return (key, header("host:") ?? "")
            }
            if !fill(fd, &buffer) { return nil }
        }
    }

    /// One masked client text frame's payload, unmasked.
    private func readFrame(_ fd: Int32, _ buffer: inout [UInt8]) -> [UInt8]? {
        while true {
            if buffer.count >= 2 {
                var length = Int(buffer[1] & 0x7F)
                var header = 2
                if length == 126, buffer.count >= 4 {
                    length = Int(buffer[2]) << 8 | Int(buffer[3])
                    header = 4
                }
                if length != 126, buffer.count >= header + 4 + length {
                    let mask = Array(buffer[header..<header + 4])
                    let payload = (0..<length).map { buffer[header + 4 + $0] ^ mask[$0 & 3] }
                    let opcode = buffer[0] & 0x0F
                    buffer.removeFirst(header + 4 + length)
                    if opcode == 0x8 { return nil }
                    return payload
                }
            }
            if !fill(fd, &buffer) { return nil }
        }
    }
}
