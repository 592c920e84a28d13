import COpenSSL

/// SHA-1 through OpenSSL; used only for the WebSocket accept key (RFC 6455 4.2.2),
/// where the algorithm is fixed by the protocol.
public enum SHA1 {
    public static let digestLength = 20

    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        OneShotDigest.compute(bytes, length: digestLength, with: COpenSSL.SHA1)
    }
}
