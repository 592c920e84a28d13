import SwitchboardCrypto
import SwitchboardSystem
import SwitchboardWebSocket

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
    /// The gateway broke RFC 6455 or the protocol's framing (a masked or
    /// binary frame, text that is not UTF-8...), so the harness dropped it:
    /// a bug to report, never a reason to reconnect.
    case breach(String)
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
    /// The node this connection goes to: its upgrade names its path and host.
    private var endpoint: GatewayEndpoint?
    private var state = State.idle
    private var maskKey: UInt32
    private var handshakeKey = ""
    /// The upgrade response while it is split across reads.
    private var head: [UInt8] = []
    /// The gateway's frames: the decoder checks each frame (opcodes, control
    /// frame rules, lengths); `received(_:)` checks what spans frames. Any
    /// breach of RFC 6455 or the protocol closes the connection, which the
    /// run counts as an unexpected close.
    private var decoder = FrameDecoder(requireMask: false, maxFrameBytes: 16 * 1024 * 1024)
    private var frameOpcode = WebSocketOpcode.text
    private var frameFin = true
    /// The data message in progress (control frames may come between its fragments).
    private var messageOpcode = WebSocketOpcode.text
    private var inMessage = false
    /// A message's payload when it spans reads or frames; empty otherwise.
    private var message: [UInt8] = []
    /// A control frame's payload split across reads (rare: at most 125 bytes).
    private var controlPayload: [UInt8] = []
    private var outbound: [UInt8] = []
    private var outboundStart = 0
    /// The code of the gateway's close frame, once one arrived.
    private var receivedClose: UInt16?

    public init(delegate: WebSocketClientDelegate?) {
        self.delegate = delegate
        // RFC 6455 5.3: a fresh, unpredictable key per connection (per frame
        // would cost a random draw per send; the gateway unmasks either way).
        maskKey = SecureRandom.bytes(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }

    /// When the bytes being handled were read: one clock reading serves every
    /// frame of a read (they arrived together), instead of one per frame.
    public private(set) var lastReadAt: UInt64 = 0

    public var pendingOutboundBytes: Int { outbound.count - outboundStart }

    func attach(fd: Int32, loop: ClientLoop, endpoint: GatewayEndpoint) {
        self.fd = fd
        self.loop = loop
        self.endpoint = endpoint
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
        guard let endpoint else { return }
        handshakeKey = Base64.encode(SecureRandom.bytes(16))
        let request =
            "GET \(endpoint.path) HTTP/1.1\r\nHost: \(endpoint.host):\(endpoint.port)\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: \(handshakeKey)\r\nSec-WebSocket-Version: 13\r\n\r\n"
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
                consume(UnsafeMutableRawBufferPointer(rebasing: loop.readBuffer[0..<count]))
                // A short read emptied the socket: more data raises a new edge,
                // so asking again would only cost a system call that says EAGAIN.
                if count < loop.readBuffer.count && events & Epoll.peerHangup == 0 { return }
            }
        }
    }

    /// Handles one read: the upgrade response first, then frames.
    private func consume(_ bytes: UnsafeMutableRawBufferPointer) {
        var offset = 0
        if state == .upgrading {
            guard let end = upgradeResponseEnd(bytes) else { return }
            offset = end
        }
        while state == .open {
            let event: FrameDecoder.Event
            do {
                event = try decoder.next(bytes, offset: &offset)
            } catch {
                finish(.breach("the gateway broke RFC 6455: \(error.reason)"))
                return
            }
            switch event {
            case .needMore:
                return
            case .header(let header):
                if let breach = Self.breach(header, inMessage: inMessage) {
                    finish(.breach("the gateway broke RFC 6455: \(breach)"))
                    return
                }
                frameOpcode = header.opcode
                frameFin = header.fin
                if !header.opcode.isControl {
                    if header.opcode != .continuation { messageOpcode = header.opcode }
                    inMessage = !header.fin
                }
            case .payload(let chunk, let frameComplete):
                payload(UnsafeRawBufferPointer(chunk), frameComplete: frameComplete)
            }
        }
    }

    /// Reads the upgrade response (kept while split across reads); returns where
    /// the frames start in `bytes`, or nil when more is needed or it was refused.
    private func upgradeResponseEnd(_ bytes: UnsafeMutableRawBufferPointer) -> Int? {
        let previous = head.count
        head.append(contentsOf: bytes)
        guard let end = Self.headEnd(head) else { return nil }
        let text = String(decoding: head[0..<end], as: UTF8.self)
        let status = text.split(separator: "\r\n").first.map(String.init) ?? text
        guard text.hasPrefix("HTTP/1.1 101") else {
            let body = String(decoding: head[end..<min(head.count, end + 200)], as: UTF8.self)
            finish(.upgradeRefused(body.isEmpty ? status : "\(status): \(body)"))
            return nil
        }
        guard WebSocketHandshake.responseAccepts(text, key: handshakeKey) else {
            finish(.upgradeRefused("\(status) without the Sec-WebSocket-Accept for our key"))
            return nil
        }
        head = []
        state = .open
        delegate?.opened(self)
        return end - previous
    }

    /// Where an HTTP head ends (just past its blank line), or nil while it has not;
    /// the drivers' HTTP client reads answers with it too.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// A frame's payload, or a piece of it. Whole single-frame messages are
    /// handed over in place; only a message split across reads or frames is copied.
    private func payload(_ chunk: UnsafeRawBufferPointer, frameComplete: Bool) {
        if frameOpcode.isControl {
            if frameComplete && controlPayload.isEmpty {
                control(chunk)
                return
            }
            controlPayload.append(contentsOf: chunk)
            guard frameComplete else { return }
            let whole = controlPayload
            controlPayload.removeAll(keepingCapacity: true)
            whole.withUnsafeBytes { control($0) }
            return
        }
        if frameComplete && frameFin && message.isEmpty {
            deliver(chunk)
            return
        }
        message.append(contentsOf: chunk)
        guard frameComplete && frameFin else { return }
        message.withUnsafeBytes { deliver($0) }
        message.removeAll(keepingCapacity: false)
    }

    /// A complete data message: the protocol sends only UTF-8 text.
    private func deliver(_ whole: UnsafeRawBufferPointer) {
        guard messageOpcode == .text else {
            finish(.breach("the gateway sent a binary message"))
            return
        }
        guard UTF8Validator.isValid(whole) else {
            finish(.breach("the gateway broke RFC 6455: a text message that is not UTF-8"))
            return
        }
        delegate?.received(whole, on: self)
    }

    /// What is wrong with a server frame's header, given whether a fragmented
    /// message is in progress; nil when nothing is. The harness negotiates no
    /// extension, so RSV1 is never allowed, and server frames are never masked.
    private static func breach(_ header: FrameHeader, inMessage: Bool) -> String? {
        if header.maskKey != nil { return "a masked server frame" }
        if header.rsv1 { return "RSV1 set without an extension" }
        if header.opcode == .continuation && !inMessage { return "a continuation frame outside a message" }
        if !header.opcode.isControl && header.opcode != .continuation && inMessage {
            return "a new message inside a fragmented one"
        }
        return nil
    }

    private func control(_ payload: UnsafeRawBufferPointer) {
        switch frameOpcode {
        case .ping:
            sendFrame(opcode: .pong, payload: payload)
        case .close:
            let code: UInt16?
            do {
                code = try CloseFrame.parse(payload).code
            } catch {
                finish(.breach("the gateway broke RFC 6455: \(error.reason)"))
                return
            }
            // Echo the code (RFC 6455 5.5.1); a close without one is echoed empty.
            // The peer may be gone already: an echo that fails to write must
            // not turn the gateway's close code into a transport error.
            receivedClose = code ?? 1005
            sendFrame(opcode: .close, payload: UnsafeRawBufferPointer(rebasing: payload[0..<(code == nil ? 0 : 2)]))
            finish(.closeFrame(code ?? 1005))
        default:
            break  // pong
        }
    }

    // MARK: Writing

    /// Sends one masked text frame.
    public func sendText(_ payload: UnsafeRawBufferPointer) {
        sendFrame(opcode: .text, payload: payload)
    }

    public func sendText(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { sendText(UnsafeRawBufferPointer($0)) }
    }

    /// Header and masked payload built in the loop's scratch buffer with the
    /// gateway's own codec (`FrameEncoder`, `WebSocketMask`), then one write.
    private func sendFrame(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        guard state == .open, let loop else { return }
        let headerLength = FrameEncoder.headerLength(payloadLength: payload.count, masked: true)
        loop.frameScratch.removeAll(keepingCapacity: true)
        loop.frameScratch.append(contentsOf: repeatElement(0, count: headerLength))
        loop.frameScratch.append(contentsOf: payload)
        loop.frameScratch.withUnsafeMutableBytes { frame in
            FrameEncoder.writeHeader(opcode: opcode, payloadLength: payload.count, maskKey: maskKey, into: frame)
            WebSocketMask.apply(
                key: maskKey, phase: 0, to: UnsafeMutableRawBufferPointer(rebasing: frame[headerLength...]))
            write(UnsafeRawBufferPointer(frame))
        }
    }

    private func write(_ bytes: UnsafeRawBufferPointer) {
        if pendingOutboundBytes > 0 {
            outbound.append(contentsOf: bytes)
            return
        }
        var written = 0
        while written < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[written...])
            let result: IOResult<Int>
            do {
                result = try Posix.write(fd, rest)
            } catch {
                finish(.transport(error.description))
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
            let result: IOResult<Int>
            do {
                result = try outbound.withUnsafeBytes { all throws(SystemError) -> IOResult<Int> in
                    try Posix.write(fd, UnsafeRawBufferPointer(rebasing: all[outboundStart...]))
                }
            } catch {
                finish(.transport("\(error)"))
                return
            }
            switch result {
            case .wouldBlock:
                return
            case .processed(let count):
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
            code.withUnsafeMutableBytes { sendFrame(opcode: .close, payload: UnsafeRawBufferPointer($0)) }
        }
        finish(.local)
    }

    /// Drops the socket without a close frame, as a browser losing its network would.
    public func abort() {
        finish(.local)
    }

    private func finish(_ reason: CloseReason) {
        guard state != .closed, state != .idle else { return }
        let reason = receivedClose.map { CloseReason.closeFrame($0) } ?? reason
        state = .closed
        loop?.forget(fd: fd)
        Posix.close(fd)
        fd = -1
        head = []
        outbound = []
        message = []
        controlPayload = []
        delegate?.closed(self, reason: reason)
    }
}
