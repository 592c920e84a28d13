import CZlib

/// Decompresses permessage-deflate messages (RFC 7692 7.2.2) with zlib in raw
/// DEFLATE mode, streaming: compressed frame payloads are fed as they arrive and
/// the output limit is checked after every zlib call, so a decompression bomb
/// stops at `limit + 1` bytes instead of exhausting memory.
///
/// Not thread-safe: one instance belongs to one connection on one loop thread.
public final class MessageInflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool

    /// The four bytes a sender strips from the end of every message (RFC 7692
    /// 7.2.1) and the receiver appends back before inflating the end (7.2.2).
    static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// - Parameters:
    ///   - windowBits: the negotiated peer window (8...15). 8 is raised to 9: a
    ///     zlib-based peer compresses with 9 when told 8 (zlib cannot do raw
    ///     window 8), and a larger inflate window decodes smaller ones anyway.
    ///   - noContextTakeover: reset the window after every message.
    public init(windowBits: Int, noContextTakeover: Bool) throws(DeflateError) {
        precondition((8...15).contains(windowBits), "windowBits must be 8...15")
        self.noContextTakeover = noContextTakeover
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // Negative window bits select raw DEFLATE (no zlib header or checksum).
        let status = czlib_inflateInit2(stream, -Int32(max(windowBits, 9)))
        guard status == Z_OK else {
            stream.deallocate()
            throw .zlib(code: status)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates one chunk of a message's compressed payload, appending to `output`.
    /// - Parameter limit: the most bytes `output` may hold; going past it throws
    ///   `.tooLarge` (after producing at most one byte more).
    public func inflate(
        _ compressed: UnsafeRawBufferPointer, limit: Int, into output: inout [UInt8]
    )
        throws(DeflateError)
    {
        do throws(DeflateError) {
            try run(compressed, limit: limit, into: &output)
        } catch {
            // Leave the stream usable; the message itself is lost either way.
            inflateReset(stream)
            throw error
        }
    }

    /// Ends the current message: inflates the stripped `00 00 ff ff` tail (RFC
    /// 7692 7.2.2), then forgets the window when context takeover is off.
    public func finishMessage(limit: Int, into output: inout [UInt8]) throws(DeflateError) {
        // Array.withUnsafeBytes does not forward typed throws; carry the error out.
        var failure: DeflateError?
        Self.tail.withUnsafeBytes { tail in
            do throws(DeflateError) {
                try inflate(tail, limit: limit, into: &output)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        if noContextTakeover { inflateReset(stream) }
    }

    /// Forgets any partial message and the window.
    public func reset() {
        inflateReset(stream)
    }

    private func run(_ input: UnsafeRawBufferPointer, limit: Int, into output: inout [UInt8]) throws(DeflateError) {
        guard let base = input.baseAddress, input.count > 0 else { return }
        var offset = 0
        // avail_in is 32-bit; feed larger inputs in slices.
        while offset < input.count {
            let slice = min(input.count - offset, 1 << 30)
            stream.pointee.next_in = UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(slice)
            try drain(limit: limit, into: &output)
            offset += slice
        }
    }

    /// Runs zlib until the current input is consumed and no output is pending.
    private func drain(limit: Int, into output: inout [UInt8]) throws(DeflateError) {
        while true {
            guard output.count <= limit else { throw .tooLarge }
            // One byte beyond the limit is allowed so that "exactly at the limit"
            // and "over it" can be told apart. Grow geometrically for big outputs.
            let room = limit - output.count + 1
            let grow = min(room, max(512, Int(stream.pointee.avail_in) * 3, output.count))
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: grow))
            let status = output.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress! + start
                stream.pointee.avail_out = UInt32(grow)
                return CZlib.inflate(stream, Z_SYNC_FLUSH)
            }
            let unused = Int(stream.pointee.avail_out)
            output.removeLast(unused)
            switch status {
            case Z_OK:
                break
            case Z_BUF_ERROR:
                // No progress possible: normal when the input is exhausted.
                if unused == grow && stream.pointee.avail_in > 0 { throw .corrupt }
            case Z_STREAM_END:
                // RFC 7692 7.2.3.4: a block with BFINAL set ends the DEFLATE stream,
                // but more may follow in this or later messages.
                startNewStreamKeepingWindow()
            case Z_DATA_ERROR, Z_NEED_DICT:
                throw .corrupt
            default:
                throw .zlib(code: status)
            }
            guard output.count <= limit else { throw .tooLarge }
            if stream.pointee.avail_in == 0 && unused > 0 { return }
        }
    }

    /// After a final block, a following stream may still refer back into the old
    /// window when context takeover is in effect, so carry the window over.
    private func startNewStreamKeepingWindow() {
        if noContextTakeover {
            inflateReset(stream)
            return
        }
        var window = [UInt8](repeating: 0, count: 1 << 15)
        var length: UInt32 = 0
        _ = inflateGetDictionary(stream, &window, &length)
        inflateReset(stream)
        if length > 0 { _ = inflateSetDictionary(stream, window, length) }
    }
}
