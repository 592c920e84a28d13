import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// What a client connection reports to the simulated widget or console above it.
public protocol WebSocketClientDelegate: AnyObject {
    /// The upgrade succeeded; frames may be sent.
    func opened(_ client: WebSocketClient)
    /// One text message (the server does not fragment, but fragments are joined).
    /// The bytes are valid only during the call.
    func received(_ text: UnsafeRawBufferPointer, on client: WebSocketClient)
    /// The connection is gone, for `reason`; it is not reused.
    func closed(_ client: WebSocketClient, reason: CloseReason)
}

public enum CloseReason: Equatable, Sendable {
    /// The harness closed it (`close()` or `abort()`).
    case local
    /// The gateway sent a close frame with this code (1005 when it had none).
    case closeFrame(UInt16)
    /// The socket ended without a close frame: EOF, reset, or a failed connect.
    case transport(String)
    /// The server answered the upgrade with something other than 101.
    case upgradeRefused(String)
}

/// One masked RFC 6455 client connection on a `ClientLoop`: connect, upgrade,
/// frame parsing and writing. Server frames arrive unmasked.
public final class WebSocketClient {
    enum State { case idle, connecting, upgrading, open, closed }

    public unowned(unsafe) var delegate: WebSocketClientDelegate?
    private(set) var fd: Int32 = -1
    private unowned(unsafe) var loop: ClientLoop?
    private var state = State.idle
    private var maskKey: UInt32
    /// Bytes of a frame (or of the upgrade response) split across reads.
    private var inbound: [UInt8] = []
    /// Payload of a fragmented message in progress.
    private var fragments: [UInt8] = []
    private var outbound: [UInt8] = []
    private var outboundStart = 0

    public init(delegate: WebSocketClientDelegate?, maskSeed: UInt32) {
        self.delegate = delegate
        // A cheap scramble so neighbouring connections use different masks.
        maskKey = (maskSeed &* 2_654_435_761) | 0x0101_0101
    }

    /// When the bytes being handled were read: one clock reading serves every
    /// frame of a read (they arrived together), instead of one per frame.
    public private(set) var lastReadAt: UInt64 = 0

    public var isOpen: Bool { state == .open }
    public var pendingOutboundBytes: Int { outbound.count - outboundStart }

    func attach(fd: Int32, loop: ClientLoop) {
        self.fd = fd
        self.loop = loop
        state = .connecting
    }

    // MARK: Events

    func handleEvents(_ events: UInt32) {
        if state == .connecting {
            guard events & (Epoll.writable | Epoll.error | Epoll.hangup) != 0 else { return }
            if let failure = ClientSocket.connectError(fd) {
                finish(.transport(failure.description))
                return
            }
            sendUpgrade()
        }
        if events & Epoll.writable != 0, pendingOutboundBytes > 0 { flush() }
        if events & (Epoll.readable | Epoll.peerHangup | Epoll.hangup | Epoll.error) != 0 { readAvailable(events) }
    }

    private func sendUpgrade() {
        state = .upgrading
        guard let loop else { return }
        let key = Self.handshakeKey(seed: maskKey)
        let request =
            "GET \(loop.path) HTTP/1.1\r\nHost: \(loop.host):\(loop.port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        var bytes = Array(request.utf8)
        bytes.withUnsafeMutableBytes { write(UnsafeRawBufferPointer($0)) }
    }

    private func readAvailable(_ events: UInt32) {
        guard let loop else { return }
        while state == .upgrading || state == .open {
            let result: IOResult<Int>
            do {
                result = try Posix.read(fd, into: loop.readBuffer)
            } catch {
                finish(.transport(error.description))
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(0):
                finish(.transport("connection closed by the gateway without a close frame"))
                return
            case .processed(let count):
                lastReadAt = MonotonicClock.nanoseconds()
                consume(UnsafeRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
                // A short read emptied the socket: more data raises a new edge,
                // so asking again would only cost a system call that says EAGAIN.
                if count < loop.readBuffer.count && events & Epoll.peerHangup == 0 { return }
            }
        }
    }

    /// Parses what arrived; keeps only an incomplete tail.
    private func consume(_ bytes: UnsafeRawBufferPointer) {
        if inbound.isEmpty {
            let used = parse(bytes)
            if used < bytes.count, state != .closed { inbound.append(contentsOf: bytes[used...]) }
        } else {
            inbound.append(contentsOf: bytes)
            let used = inbound.withUnsafeBytes { parse($0) }
            if state != .closed { inbound.removeFirst(used) }
        }
    }

    /// Returns how many bytes were used: whole frames (or the upgrade head).
    private func parse(_ bytes: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        if state == .upgrading {
            guard let end = Self.headEnd(bytes) else { return 0 }
            let head = String(decoding: bytes[0..<end], as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 101") else {
                let status = head.split(separator: "\r\n").first.map(String.init) ?? head
                let body = String(decoding: bytes[end..<min(bytes.count, end + 200)], as: UTF8.self)
                finish(.upgradeRefused(body.isEmpty ? status : "\(status): \(body)"))
                return bytes.count
            }
            state = .open
            offset = end
            delegate?.opened(self)
        }
        while state == .open {
            guard let frame = FrameHeader.parse(bytes, at: offset) else { break }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[frame.payloadStart..<frame.payloadEnd])
            offset = frame.payloadEnd
            handleFrame(opcode: frame.opcode, fin: frame.fin, payload: payload)
        }
        return offset
    }

    private static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    private func handleFrame(opcode: UInt8, fin: Bool, payload: UnsafeRawBufferPointer) {
        switch opcode {
        case 0x1 where fin && fragments.isEmpty:
            delegate?.received(payload, on: self)
        case 0x1, 0x0:
            fragments.append(contentsOf: payload)
            if fin {
                let message = fragments
                fragments.removeAll(keepingCapacity: true)
                message.withUnsafeBytes { delegate?.received($0, on: self) }
            }
        case 0x9:
            sendFrame(opcode: 0xA, payload: payload)
        case 0x8:
            let code = payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : 1005
            sendFrame(opcode: 0x8, payload: UnsafeRawBufferPointer(rebasing: payload[0..<min(2, payload.count)]))
            finish(.closeFrame(code))
        default:
            break  // pong, or a binary frame the gateway never sends
        }
    }

    // MARK: Writing

    /// Sends one masked text frame.
    public func sendText(_ payload: UnsafeRawBufferPointer) {
        sendFrame(opcode: 0x1, payload: payload)
    }

    public func sendText(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { sendText(UnsafeRawBufferPointer($0)) }
    }

    private func sendFrame(opcode: UInt8, payload: UnsafeRawBufferPointer) {
        guard state == .open, let loop else { return }
        loop.frameScratch.removeAll(keepingCapacity: true)
        FrameHeader.appendMasked(opcode: opcode, payload: payload, maskKey: maskKey, to: &loop.frameScratch)
        loop.frameScratch.withUnsafeBytes { write($0) }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) {
        if pendingOutboundBytes > 0 {
            outbound.append(contentsOf: bytes)
            return
        }
        var written = 0
        while written < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[written...])
            guard let result = try? Posix.write(fd, rest) else {
                finish(.transport("write failed"))
                return
            }
            guard case .processed(let count) = result else { break }
            written += count
        }
        if written < bytes.count {
            outbound.removeAll(keepingCapacity: true)
            outboundStart = 0
            outbound.append(contentsOf: bytes[written...])
        }
    }

    private func flush() {
        while pendingOutboundBytes > 0 {
            let result = outbound.withUnsafeBytes { all -> IOResult<Int>? in
                try? Posix.write(fd, UnsafeRawBufferPointer(rebasing: all[outboundStart...]))
            }
            switch result {
            case nil:
                finish(.transport("write failed"))
                return
            case .wouldBlock?:
                return
            case .processed(let count)?:
                outboundStart += count
            }
        }
        outbound.removeAll(keepingCapacity: false)
        outboundStart = 0
    }

    // MARK: Closing

    /// Sends a normal close (1000) and releases the socket.
    public func close() {
        if state == .open {
            var code: [UInt8] = [0x03, 0xE8]
            code.withUnsafeMutableBytes { sendFrame(opcode: 0x8, payload: UnsafeRawBufferPointer($0)) }
        }
        finish(.local)
    }

    /// Drops the socket without a close frame, as a browser losing its network would.
    public func abort() {
        finish(.local)
    }

    private func finish(_ reason: CloseReason) {
        guard state != .closed, state != .idle else { return }
        state = .closed
        loop?.forget(fd: fd)
        Posix.close(fd)
        fd = -1
        inbound = []
        outbound = []
        fragments = []
        delegate?.closed(self, reason: reason)
    }
}

extension WebSocketClient {
    /// A `Sec-WebSocket-Key`: 16 bytes (from the seed; the harness needs no
    /// secrecy here) in base64, as RFC 6455 4.1 requires.
    static func handshakeKey(seed: UInt32) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var state = UInt64(seed) | 1
        let bytes = (0..<16).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var key = ""
        for start in stride(from: 0, to: 15, by: 3) {
            let chunk = UInt32(bytes[start]) << 16 | UInt32(bytes[start + 1]) << 8 | UInt32(bytes[start + 2])
            for shift in [18, 12, 6, 0] { key.append(alphabet[Int((chunk >> UInt32(shift)) & 0x3F)]) }
        }
        let last = UInt32(bytes[15]) << 16
        key.append(alphabet[Int(last >> 18 & 0x3F)])
        key.append(alphabet[Int(last >> 12 & 0x3F)])
        return key + "=="
    }
}
