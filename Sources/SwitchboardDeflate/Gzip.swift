import CZlib

/// Whole-buffer gzip (RFC 1952), for content compressed once and served many
/// times (the browser clients' files): zlib's deflate with a gzip wrapper
/// (windowBits 15 + 16), at the best compression, since the cost is paid once.
public enum Gzip {
    /// One gzip member holding `bytes`.
    public static func compress(_ bytes: [UInt8], level: Int = 9) throws(DeflateError) -> [UInt8] {
        var stream = z_stream()
        let status = czlib_deflateInit2(&stream, Int32(level), Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY)
        guard status == Z_OK else { throw .zlib(code: status) }
        defer { deflateEnd(&stream) }
        // deflateBound covers the deflate stream; the gzip header and trailer add 18 bytes.
        let capacity = Int(deflateBound(&stream, UInt(bytes.count))) + 18
        var output = [UInt8](repeating: 0, count: capacity)
        let (result, produced) = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                let result = deflate(&stream, Z_FINISH)
                return (result, out.count - Int(stream.avail_out))
            }
        }
        // With room for the bound, one call finishes the stream.
        guard result == Z_STREAM_END else { throw .zlib(code: result) }
        output.removeSubrange(produced...)
        return output
    }
}
