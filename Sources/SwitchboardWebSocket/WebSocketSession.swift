import SwitchboardDeflate

/// The WebSocket protocol state of one server-side connection (RFC 6455, with
/// RFC 7692 permessage-deflate when negotiated): decodes client frames, checks
/// every framing rule, reassembles and inflates messages, answers pings and
/// closes, and encodes outgoing frames. It does no I/O: bytes come in through
/// `receive` and go out through its `send` callback or the `encode...` results.
///
/// Threading: not thread-safe by design. A session belongs to the event-loop
/// thread that owns its connection, and every call must come from that thread.
///
/// Memory: an idle session holds no buffers. Partial headers wait in the
/// decoder's inline stash; a message that arrives whole in one read is handed
/// over as a pointer into the read buffer. Fragmented or compressed messages
/// are assembled in a buffer that is kept for reuse only while it is small
/// (`retainedBufferCapacity`). zlib streams are created on first use; without
/// context takeover the compressor is the loop's (`SharedDeflaters`), not the session's.
public final class WebSocketSession {
    public let configuration: WebSocketConfiguration
    /// The negotiated permessage-deflate parameters, nil when not negotiated.
    public let deflate: DeflateParameters?
    let deflateConfiguration: DeflateConfiguration

    /// Assembly buffers up to this capacity are kept between messages; larger
    /// ones are freed so that one big message does not pin memory forever.
    public static let retainedBufferCapacity = 4096

    var decoder: FrameDecoder
    /// The frame whose payload is being decoded.
    var frame = FrameHeader(fin: true, rsv1: false, opcode: .binary, payloadLength: 0, maskKey: nil)
    /// True for data frames that arrive after our close: read and dropped.
    var discardFrame = false

    /// The data message being received: its opcode (nil between messages), whether
    /// it is compressed, and the payload bytes its frame headers announced so far.
    var messageOpcode: WebSocketOpcode?
    var messageCompressed = false
    var messageWireBytes = 0
    /// The most compressed bytes one message may carry: deflate can expand
    /// incompressible data slightly, so allow some slack above the inflated limit.
    let compressedLimit: Int
    var validator = UTF8Validator()
    var messageBuffer: [UInt8] = []
    /// A control frame whose payload straddles reads (at most 125 bytes).
    var controlBuffer: [UInt8] = []

    var inflater: MessageInflater?
    /// This connection's own compressor: only with context takeover, where the
    /// window carries over from one message to the next.
    private var deflater: MessageDeflater?
    /// The loop's compressors, used instead when the server forgets its window
    /// after every message (`server_no_context_takeover`).
    private let sharedDeflaters: SharedDeflaters?

    /// True once a close frame was sent (by `encodeClose`, a reply or a failure).
    public private(set) var isClosing = false
    /// True once the peer's close frame arrived.
    public private(set) var closeReceived = false
    /// The code of the peer's close frame, if it had one.
    public private(set) var peerCloseCode: UInt16?
    /// Why the session failed the connection, if it did.
    public private(set) var failure: WebSocketError?

    /// - Parameter sharedDeflaters: the compressors of the loop that owns the
    ///   connection; without them a session compresses with its own even
    ///   without context takeover. zlib streams are created on first use, so
    ///   nothing here can fail.
    public init(
        configuration: WebSocketConfiguration, deflate: DeflateParameters?, deflateConfiguration: DeflateConfiguration,
        sharedDeflaters: SharedDeflaters? = nil
    ) {
        self.configuration = configuration
        self.deflate = deflate
        self.deflateConfiguration = deflateConfiguration
        self.sharedDeflaters = sharedDeflaters
        let maxMessage = configuration.maxMessageBytes
        compressedLimit = maxMessage > Int.max / 4 ? Int.max : maxMessage + maxMessage / 4 + 1024
        decoder = FrameDecoder(requireMask: true, maxFrameBytes: configuration.maxFrameBytes ?? .max)
    }

    /// Feeds bytes read from the socket. Payloads are unmasked in place in `bytes`.
    ///
    /// - Parameters:
    ///   - onMessage: called for each complete text or binary message, with the
    ///     payload valid only during the call (UTF-8 checked for text, inflated
    ///     when compressed).
    ///   - send: called with bytes to write back (pongs, close frames), valid only
    ///     during the call.
    /// - Returns: `.closing` once a close frame has been sent; the caller then
    ///   flushes its output and closes the TCP connection.
    public func receive(
        _ bytes: UnsafeMutableRawBufferPointer,
        onMessage: (WebSocketOpcode, UnsafeRawBufferPointer) -> Void,
        send: (UnsafeRawBufferPointer) -> Void
    ) -> WebSocketReceiveOutcome {
        if failure != nil || closeReceived { return .closing }
        var offset = 0
        do throws(WebSocketError) {
            while true {
                switch try decoder.next(bytes, offset: &offset) {
                case .needMore:
                    return isClosing ? .closing : .open
                case .header(let header):
                    try begin(header)
                case .payload(let chunk, let complete):
                    if frame.opcode.isControl {
                        try control(UnsafeRawBufferPointer(chunk), complete: complete, send: send)
                        // RFC 6455 5.5.1: nothing the peer sends after its close matters.
                        if closeReceived { return .closing }
                    } else if !discardFrame {
                        try data(UnsafeRawBufferPointer(chunk), complete: complete, onMessage: onMessage)
                    }
                }
            }
        } catch {
            return fail(error, send: send)
        }
    }

    /// Checks the rules that depend on earlier frames (RFC 6455 5.4, RFC 7692 6.1).
    private func begin(_ header: FrameHeader) throws(WebSocketError) {
        frame = header
        discardFrame = false
        if header.opcode.isControl {
            // RFC 7692 6.1: permessage-deflate defines RSV1 for data messages only.
            guard !header.rsv1 else { throw .protocolError("RSV1 set on a control frame") }
            return
        }
        if isClosing {
            // RFC 6455 1.4: after sending a close, data from the peer is discarded.
            discardFrame = true
            return
        }
        if header.opcode == .continuation {
            // RFC 6455 5.4: a continuation needs a message in progress.
            guard messageOpcode != nil else { throw .protocolError("continuation frame without a message") }
            // RFC 7692 6.1: RSV1 is set on the first frame of a message only.
            guard !header.rsv1 else { throw .protocolError("RSV1 set on a continuation frame") }
        } else {
            // RFC 6455 5.4: fragments of one message must not interleave with another.
            guard messageOpcode == nil else { throw .protocolError("new message inside a fragmented message") }
            // RFC 6455 5.2: RSV1 needs a negotiated extension that defines it.
            guard !header.rsv1 || deflate != nil else { throw .protocolError("RSV1 set without permessage-deflate") }
            messageOpcode = header.opcode
            messageCompressed = header.rsv1
            messageWireBytes = 0
            validator.reset()
        }
        // Refuse oversized messages from the headers alone, before buffering them.
        let limit = messageCompressed ? compressedLimit : configuration.maxMessageBytes
        guard header.payloadLength <= limit - messageWireBytes else { throw .messageTooBig }
        messageWireBytes += header.payloadLength
    }

    private func control(
        _ chunk: UnsafeRawBufferPointer, complete: Bool, send: (UnsafeRawBufferPointer) -> Void
    )
        throws(WebSocketError)
    {
        if complete && controlBuffer.isEmpty {
            try handleControl(chunk, send: send)
            return
        }
        controlBuffer.append(contentsOf: chunk)
        guard complete else { return }
        var body: [UInt8] = []
        swap(&body, &controlBuffer)  // leaves controlBuffer empty and unallocated
        let error: WebSocketError? = body.withUnsafeBytes { raw in
            do throws(WebSocketError) {
                try handleControl(raw, send: send)
                return nil
            } catch {
                return error
            }
        }
        if let error { throw error }
    }

    private func handleControl(
        _ body: UnsafeRawBufferPointer, send: (UnsafeRawBufferPointer) -> Void
    )
        throws(WebSocketError)
    {
        switch frame.opcode {
        case .ping:
            // RFC 6455 5.5.2: answer with a pong carrying the same payload, unless
            // our close is already out (5.5.1: no frames after a close).
            guard !isClosing else { return }
            Self.withFrame(opcode: .pong, payload: body, send)
        case .close:
            let (code, _) = try CloseFrame.parse(body)
            closeReceived = true
            peerCloseCode = code
            if !isClosing {
                // RFC 6455 5.5.1: reply with a close, echoing the status code.
                isClosing = true
                let reply = FrameEncoder.encodeClose(code: code)
                reply.withUnsafeBytes(send)
            }
            releaseBuffers()
        default:
            // RFC 6455 5.5.3: an unsolicited pong needs no answer.
            break
        }
    }

    /// Fails the connection (RFC 6455 7.1.7): sends a close with the error's code
    /// unless one was already sent, and stops decoding.
    private func fail(_ error: WebSocketError, send: (UnsafeRawBufferPointer) -> Void) -> WebSocketReceiveOutcome {
        failure = error
        if !isClosing {
            isClosing = true
            let frame = FrameEncoder.encodeClose(code: error.closeCode, reason: error.reason)
            frame.withUnsafeBytes(send)
        }
        releaseBuffers()
        return .closing
    }

    func releaseBuffers() {
        messageBuffer = []
        controlBuffer = []
        messageOpcode = nil
    }

    /// Encodes a small control frame on the stack and hands it to `send`.
    private static func withFrame(
        opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer, _ send: (UnsafeRawBufferPointer) -> Void
    ) {
        withUnsafeTemporaryAllocation(byteCount: 2 + 125, alignment: 8) { buffer in
            let header = FrameEncoder.writeHeader(opcode: opcode, payloadLength: payload.count, into: buffer)
            if let source = payload.baseAddress, payload.count > 0 {
                (buffer.baseAddress! + header).copyMemory(from: source, byteCount: payload.count)
            }
            send(UnsafeRawBufferPointer(rebasing: buffer[..<(header + payload.count)]))
        }
    }

    // MARK: - Outgoing

    /// One unfragmented server frame for a message: compressed (RSV1 set) when
    /// deflate was negotiated and the payload is at least `minimumCompressSize`.
    public func encodeMessage(opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) -> [UInt8] {
        if compresses(opcode, payloadCount: payload.count), let deflater = obtainDeflater() {
            // Leave room for the longest unmasked header in front, then slide the
            // frame start to where the actual header begins.
            let reserve = 10
            var frame = [UInt8](repeating: 0, count: reserve)
            frame.reserveCapacity(reserve + payload.count / 2 + 64)
            do {
                try deflater.deflate(payload, into: &frame)
                let compressed = frame.count - reserve
                let header = FrameEncoder.headerLength(payloadLength: compressed)
                frame.withUnsafeMutableBytes { raw in
                    _ = FrameEncoder.writeHeader(
                        opcode: opcode, rsv1: true, payloadLength: compressed,
                        into: UnsafeMutableRawBufferPointer(rebasing: raw[(reserve - header)..<reserve]))
                }
                frame.removeFirst(reserve - header)
                return frame
            } catch {
                // The deflater has reset itself, so it never refers back to data the
                // peer did not see; sending this message uncompressed is safe.
            }
        }
        return FrameEncoder.encode(opcode: opcode, payload: payload)
    }

    /// Whether `encodeMessage` compresses a message of this size. Callers that
    /// send uncompressed messages may write the header and payload themselves
    /// (`FrameEncoder.writeHeader`) and skip building a frame.
    public func compresses(_ opcode: WebSocketOpcode, payloadCount: Int) -> Bool {
        deflate != nil && !opcode.isControl && payloadCount >= deflateConfiguration.minimumCompressSize
    }

    public func encodeMessage(opcode: WebSocketOpcode, payload: [UInt8]) -> [UInt8] {
        payload.withUnsafeBytes { encodeMessage(opcode: opcode, payload: $0) }
    }

    /// `encodeMessage` for a message that `source` (one object per message)
    /// sends to many connections: when this session compresses with its
    /// loop's compressor, every such session of the loop gets the one frame
    /// the first made.
    public func encodeMessage(opcode: WebSocketOpcode, payload: [UInt8], sharedBy source: AnyObject) -> [UInt8] {
        guard compresses(opcode, payloadCount: payload.count), let deflate, deflate.serverNoContextTakeover,
            let sharedDeflaters
        else { return encodeMessage(opcode: opcode, payload: payload) }
        return sharedDeflaters.frame(sharing: source, windowBits: deflate.serverMaxWindowBits, kind: opcode.rawValue) {
            encodeMessage(opcode: opcode, payload: payload)
        }
    }

    /// A close frame; from now on the session is closing and ignores data frames.
    public func encodeClose(code: UInt16, reason: String) -> [UInt8] {
        isClosing = true
        return FrameEncoder.encodeClose(code: code, reason: reason)
    }

    /// A ping frame (RFC 6455 5.5.2); the payload must be at most 125 bytes.
    public func encodePing(_ payload: UnsafeRawBufferPointer) -> [UInt8] {
        precondition(payload.count <= 125, "control frame payloads are at most 125 bytes")
        return FrameEncoder.encode(opcode: .ping, payload: payload)
    }

    public func encodePing(_ payload: [UInt8] = []) -> [UInt8] {
        payload.withUnsafeBytes { encodePing($0) }
    }

    private func obtainDeflater() -> MessageDeflater? {
        if let deflater { return deflater }
        guard let deflate else { return nil }
        if deflate.serverNoContextTakeover, let sharedDeflaters {
            return sharedDeflaters.deflater(windowBits: deflate.serverMaxWindowBits)
        }
        deflater = try? MessageDeflater(
            windowBits: deflate.serverMaxWindowBits, noContextTakeover: deflate.serverNoContextTakeover,
            level: deflateConfiguration.compressionLevel, memLevel: deflateConfiguration.memLevel)
        return deflater
    }
}
