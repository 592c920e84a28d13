import CZlib

/// Compresses outgoing permessage-deflate messages (RFC 7692 7.2.1): raw
/// DEFLATE, each message ended with a sync flush whose `00 00 ff ff` marker is
/// stripped from the payload.
///
/// Not thread-safe: one instance belongs to one connection (or one fan-out
/// encoder) on one loop thread.
public final class MessageDeflater {
    private let stream: UnsafeMutablePointer<z_stream>
    private let noContextTakeover: Bool

    /// - Parameters:
    ///   - windowBits: the negotiated server window (8...15). zlib refuses a raw
    ///     window of 8, so 8 compresses with 9: zlib never emits a distance beyond
    ///     window size - 262 (MIN_LOOKAHEAD), 250 for window 9, so the output still
    ///     decodes with a 256-byte window.
    ///   - noContextTakeover: reset the compressor after every message.
    ///   - level: zlib compression level (-1...9).
    ///   - memLevel: zlib memLevel (1...9).
    public init(windowBits: Int, noContextTakeover: Bool, level: Int, memLevel: Int) throws(DeflateError) {
        precondition((8...15).contains(windowBits), "windowBits must be 8...15")
        self.noContextTakeover = noContextTakeover
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = czlib_deflateInit2(
            stream, Int32(level), Z_DEFLATED, -Int32(max(windowBits, 9)), Int32(memLevel), Z_DEFAULT_STRATEGY)
        guard status == Z_OK else {
            stream.deallocate()
            throw .zlib(code: status)
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    /// Compresses one whole message, appending the payload (without the trailing
    /// `00 00 ff ff`) to `output`.
    public func deflate(_ message: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(DeflateError) {
        // RFC 7692 7.2.3.6: an empty message is the single byte 0x00 (with the
        // receiver's appended tail, an empty stored block). zlib would emit nothing
        // when already flushed, leaving the receiver mid-block.
        guard message.count > 0 else {
            output.append(0x00)
            return
        }
        let start = output.count
        var offset = 0
        repeat {
            let slice = min(message.count - offset, 1 << 30)
            let input = message.baseAddress.map {
                UnsafeMutablePointer(mutating: ($0 + offset).assumingMemoryBound(to: UInt8.self))
            }
            stream.pointee.next_in = input
            stream.pointee.avail_in = UInt32(slice)
            offset += slice
            // Only the last slice needs the flush; earlier ones just feed zlib.
            try drain(flush: offset == message.count ? Z_SYNC_FLUSH : Z_NO_FLUSH, into: &output)
        } while offset < message.count
        stream.pointee.next_in = nil
        if output.count - start >= 4, Array(output[(output.count - 4)...]) == MessageInflater.tail {
            output.removeLast(4)
        }
        if noContextTakeover { deflateReset(stream) }
    }

    private func drain(flush: Int32, into output: inout [UInt8]) throws(DeflateError) {
        while true {
            // Sync-flushed output rarely exceeds the input by more than a few bytes
            // per 16 KiB block plus the flush marker.
            let grow = max(64, Int(stream.pointee.avail_in) + Int(stream.pointee.avail_in) / 16 + 64)
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: grow))
            let status = output.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_out = buffer.baseAddress! + start
                stream.pointee.avail_out = UInt32(clamping: grow)
                return CZlib.deflate(stream, flush)
            }
            let unused = Int(stream.pointee.avail_out)
            output.removeLast(unused)
            guard status == Z_OK || status == Z_BUF_ERROR else {
                deflateReset(stream)
                throw .zlib(code: status)
            }
            // zlib's contract: the call is complete once it leaves output space unused.
            if unused > 0 && stream.pointee.avail_in == 0 { return }
        }
    }
}
