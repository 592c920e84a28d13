/// Incremental frame decoder: turns a stream of bytes, handed over in reads of
/// any size, into headers and unmasked payload chunks, without copying the
/// payload. A header split across reads waits in a 16-byte inline stash
/// (RFC 6455 headers are at most 14 bytes), so decoding never allocates.
///
/// Not thread-safe; owned by one `WebSocketSession`.
public struct FrameDecoder {
    public enum Event {
        /// Everything in the buffer was consumed; call again with the next read.
        case needMore
        /// A new frame starts; its payload follows as one or more `.payload` events
        /// (exactly one, empty, for a zero-length payload).
        case header(FrameHeader)
        /// The next piece of the current frame's payload, already unmasked, pointing
        /// into the caller's buffer. `frameComplete` marks the frame's last piece.
        case payload(UnsafeMutableRawBufferPointer, frameComplete: Bool)
    }

    private let requireMask: Bool
    private let maxFrameBytes: Int
    private var stash: (UInt64, UInt64) = (0, 0)
    private var stashCount = 0
    private var inPayload = false
    private var remaining = 0
    private var maskKey: UInt32?
    private var phase = 0

    /// - Parameters:
    ///   - requireMask: true on the server side (RFC 6455 5.1).
    ///   - maxFrameBytes: data frames with a longer payload fail with 1009.
    public init(requireMask: Bool = true, maxFrameBytes: Int = .max) {
        self.requireMask = requireMask
        self.maxFrameBytes = maxFrameBytes
    }

    /// True when no partial header or payload is pending.
    public var isAtFrameBoundary: Bool { !inPayload && stashCount == 0 }

    /// Decodes the next event from `buffer[offset...]`, advancing `offset`.
    /// Payload bytes are unmasked in place in `buffer`.
    public mutating func next(
        _ buffer: UnsafeMutableRawBufferPointer, offset: inout Int
    ) throws(WebSocketError)
        -> Event
    {
        if inPayload { return payload(buffer, offset: &offset) }
        let available = buffer.count - offset
        if stashCount == 0 {
            // Fast path: the whole header is in the caller's buffer.
            if available >= 2, let base = buffer.baseAddress {
                let start = base + offset
                let headerLength = FrameHeader.length(secondByte: start.load(fromByteOffset: 1, as: UInt8.self))
                if available >= headerLength {
                    let header = try FrameHeader.parse(start, requireMask: requireMask, maxFrameBytes: maxFrameBytes)
                    offset += headerLength
                    begin(header)
                    return .header(header)
                }
            }
            if available == 0 { return .needMore }
        }
        return try stashHeader(buffer, offset: &offset)
    }

    /// Slow path: collects a header that straddles reads, byte range by byte range.
    private mutating func stashHeader(
        _ buffer: UnsafeMutableRawBufferPointer, offset: inout Int
    ) throws(WebSocketError)
        -> Event
    {
        while true {
            let needed: Int
            if stashCount < 2 {
                needed = 2
            } else {
                needed = withUnsafeBytes(of: &stash) { FrameHeader.length(secondByte: $0[1]) }
            }
            if stashCount == needed {
                let header = try withUnsafeBytes(of: &stash) { (raw) throws(WebSocketError) in
                    try FrameHeader.parse(raw.baseAddress!, requireMask: requireMask, maxFrameBytes: maxFrameBytes)
                }
                stashCount = 0
                stash = (0, 0)
                begin(header)
                return .header(header)
            }
            let take = min(needed - stashCount, buffer.count - offset)
            if take == 0 { return .needMore }
            let count = stashCount
            withUnsafeMutableBytes(of: &stash) { raw in
                raw.baseAddress!.advanced(by: count).copyMemory(from: buffer.baseAddress! + offset, byteCount: take)
            }
            stashCount += take
            offset += take
        }
    }

    private mutating func begin(_ header: FrameHeader) {
        inPayload = true
        remaining = header.payloadLength
        maskKey = header.maskKey
        phase = 0
    }

    private mutating func payload(_ buffer: UnsafeMutableRawBufferPointer, offset: inout Int) -> Event {
        if remaining == 0 {
            inPayload = false
            return .payload(UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset]), frameComplete: true)
        }
        let take = min(remaining, buffer.count - offset)
        if take == 0 { return .needMore }
        let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + take)])
        if let key = maskKey {
            WebSocketMask.apply(key: key, phase: phase, to: chunk)
            phase = (phase + take) & 3
        }
        offset += take
        remaining -= take
        if remaining == 0 { inPayload = false }
        return .payload(chunk, frameComplete: remaining == 0)
    }
}
