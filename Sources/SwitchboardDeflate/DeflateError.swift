/// Failures of the permessage-deflate codecs. The WebSocket layer maps them to
/// close codes: `.tooLarge` to 1009, `.corrupt` to 1007 (RFC 7692 8.1 treats an
/// undecodable message as invalid data), `.zlib` to 1011.
public enum DeflateError: Error, Equatable, Sendable {
    /// The inflated message would exceed the caller's limit (a decompression bomb
    /// or simply an oversized message); inflation stopped at the limit.
    case tooLarge
    /// The compressed bytes are not a valid DEFLATE stream.
    case corrupt
    /// zlib reported an internal failure (usually out of memory).
    case zlib(code: Int32)
}
