import COpenSSL

/// An HMAC-SHA256 key made ready once, for many messages under one secret.
///
/// `HMACSHA256.authenticate` is OpenSSL's one-shot `HMAC()`, which in OpenSSL
/// 3 looks the algorithm up and sets the key anew on every call: 1.7 µs for a
/// 640-byte message on the benchmark machine, against 0.7 µs with a keyed
/// context re-initialized per message (2026-11-29). A webhook dispatcher signs
/// every request with one of its endpoints' few secrets.
///
/// Not thread-safe: every message re-initializes the one context, so a
/// thread keeps its own keys.
public final class HMACSHA256Key {
    private let context: OpaquePointer
    /// For the one-shot, should OpenSSL refuse the context mid-way.
    private let key: [UInt8]

    public init(key: [UInt8]) throws(HMACSHA256KeyError) {
        guard let context = key.withUnsafeBufferPointer({ copenssl_hmac_sha256_context($0.baseAddress, $0.count) })
        else { throw HMACSHA256KeyError() }
        self.context = context
        self.key = key
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// The MAC of the parts' UTF-8 bytes one after another, without joining
    /// them into a copy first.
    public func authenticate(_ parts: String...) -> [UInt8] {
        mac(
            feeding: { update in
                for var part in parts {
                    guard part.withUTF8({ update(UnsafeRawBufferPointer($0)) }) else { return false }
                }
                return true
            }, orElse: { Array(parts.joined().utf8) })
    }

    /// The MAC of the byte slices one after another (a receiver's request,
    /// read into one buffer, without copying its pieces out).
    public func authenticate(slices parts: ArraySlice<UInt8>...) -> [UInt8] {
        mac(
            feeding: { update in
                for part in parts {
                    guard part.withUnsafeBytes({ update($0) }) else { return false }
                }
                return true
            }, orElse: { Array(parts.joined()) })
    }

    /// Re-initializes the context, lets `feed` update it, and finishes; the
    /// one-shot's MAC of `message()` should OpenSSL refuse a step.
    private func mac(
        feeding feed: ((UnsafeRawBufferPointer) -> Bool) -> Bool, orElse message: () -> [UInt8]
    ) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: HMACSHA256.digestLength)
        var length = 0
        let context = context
        var accepted =
            EVP_MAC_init(context, nil, 0, nil) == 1
            && feed { bytes in EVP_MAC_update(context, bytes.baseAddress, bytes.count) == 1 }
        if accepted {
            accepted = digest.withUnsafeMutableBufferPointer { out in
                EVP_MAC_final(context, out.baseAddress, &length, out.count) == 1
            }
        }
        guard accepted, length == HMACSHA256.digestLength else {
            return HMACSHA256.authenticate(message: message(), key: key)
        }
        return digest
    }
}

/// OpenSSL could not make an HMAC-SHA256 context (it says no more).
public struct HMACSHA256KeyError: Error, Sendable, CustomStringConvertible {
    public var description: String { "OpenSSL could not set up HMAC-SHA256" }
}
