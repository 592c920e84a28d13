import COpenSSL

/// The server side of ALPN (RFC 7301): picks the protocol from what a client offers.
///
/// Immutable; OpenSSL calls `select` from whichever loop thread is running a handshake, so it is shared
/// between threads without locking. The owning `TLSContext` keeps it alive, and every `TLSConnection`
/// keeps its context alive, so the pointer handed to OpenSSL as callback argument stays valid.
final class ALPNSelector: Sendable {
    /// Server protocols, most preferred first, as bytes.
    let protocols: [[UInt8]]

    init(protocols: [String]) throws(TLSError) {
        var encoded: [[UInt8]] = []
        for name in protocols {
            let bytes = Array(name.utf8)
            // RFC 7301 3.1: a protocol name is 1 to 255 bytes (its length is one byte on the wire).
            guard (1...255).contains(bytes.count) else {
                throw TLSError(message: "invalid ALPN protocol name \"\(name)\": must be 1 to 255 bytes")
            }
            encoded.append(bytes)
        }
        self.protocols = encoded
    }

    /// Returns the offset and length of the chosen protocol inside the client's wire-format list
    /// (length-prefixed names), or nil when nothing matches. Server preference wins, as in most servers,
    /// so the choice does not depend on the order a client happens to list protocols in.
    func select(from offered: UnsafeRawBufferPointer) -> (offset: Int, count: Int)? {
        for wanted in protocols {
            var index = 0
            while index < offered.count {
                let length = Int(offered[index])
                let start = index + 1
                // OpenSSL validates the extension first; this guard keeps a bad list from reading past the end.
                guard start + length <= offered.count else { return nil }
                if length == wanted.count && offered[start..<start + length].elementsEqual(wanted) {
                    return (start, length)
                }
                index = start + length
            }
        }
        return nil
    }

    /// Installs the selector on a server `SSL_CTX`.
    func install(on context: OpaquePointer) {
        let argument = Unmanaged.passUnretained(self).toOpaque()
        SSL_CTX_set_alpn_select_cb(context, alpnSelectCallback, argument)
    }
}

/// OpenSSL's ALPN callback. It copies the selected name as soon as this returns, so `out` may point
/// into the client's list.
private func alpnSelectCallback(
    ssl: OpaquePointer?, out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, outLength: UnsafeMutablePointer<UInt8>?,
    offered: UnsafePointer<UInt8>?, offeredLength: UInt32, argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let argument, let offered, let out, let outLength else { return SSL_TLSEXT_ERR_ALERT_FATAL }
    let selector = Unmanaged<ALPNSelector>.fromOpaque(argument).takeUnretainedValue()
    let list = UnsafeRawBufferPointer(start: offered, count: Int(offeredLength))
    guard let (offset, count) = selector.select(from: list) else {
        // RFC 7301 3.2: no overlap is fatal with no_application_protocol, which OpenSSL sends for this value.
        return SSL_TLSEXT_ERR_ALERT_FATAL
    }
    out.pointee = offered + offset
    outLength.pointee = UInt8(count)
    return SSL_TLSEXT_ERR_OK
}
