/// The permessage-deflate parameters both sides agreed on (RFC 7692 7.1).
///
/// "server" is this gateway's compressor, "client" the peer's compressor (and
/// therefore this gateway's decompressor).
public struct DeflateParameters: Equatable, Sendable {
    /// RFC 7692 7.1.1.1: the server resets its compressor after every message.
    public var serverNoContextTakeover: Bool
    /// RFC 7692 7.1.1.2: the client resets its compressor after every message,
    /// so the server may reset its decompressor too.
    public var clientNoContextTakeover: Bool
    /// RFC 7692 7.1.2.1: the LZ77 window the server compresses with, 8...15.
    public var serverMaxWindowBits: Int
    /// RFC 7692 7.1.2.2: the LZ77 window the client compresses with, 8...15.
    public var clientMaxWindowBits: Int

    public init(
        serverNoContextTakeover: Bool = false,
        clientNoContextTakeover: Bool = false,
        serverMaxWindowBits: Int = 15,
        clientMaxWindowBits: Int = 15
    ) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }
}
