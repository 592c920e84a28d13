// libFuzzer target for the HS256 token verifier. Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// No input may crash the verifier, and nothing but a token signed with the
// secret may pass. The first input byte picks how the rest is used: as a whole
// token, or as the payload of a correctly signed one (so the claim checks are
// reached, not only the signature check).
import SwitchboardAuth
import SwitchboardCrypto

private let secret = "fuzz-secret-that-is-at-least-32-bytes"
private let verifier = TokenVerifier(secret: secret, clockSkewSeconds: 30)
private let now: Int64 = 1_800_000_000

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let rest = UnsafeBufferPointer(start: start + 1, count: count - 1)
    let token: String
    let signed: Bool
    if start[0] & 1 == 0 {
        token = String(decoding: rest, as: UTF8.self)
        signed = false
    } else {
        let header = Base64.encodeURLSafe(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = Base64.encodeURLSafe(Array(rest))
        let input = "\(header).\(payload)".trimmingPadding()
        let signature = Base64.encodeURLSafe(
            HMACSHA256.authenticate(message: Array(input.utf8), key: Array(secret.utf8)))
        token = "\(input).\(signature.trimmingPadding())"
        signed = true
    }
    do {
        let identity = try verifier.verify(token, now: now)
        precondition(signed, "a token not signed with the secret passed")
        precondition(!identity.id.isEmpty && identity.id.utf8.count <= 128, "sub out of bounds")
        precondition(identity.expiresAt + 30 > now, "an expired token passed")
        precondition(identity.workspaceID == identity.workspaceID.lowercased(), "workspace id not lower-cased")
    } catch {
        precondition(!"\(error)".contains(secret), "an error names the secret")
    }
    return 0
}

extension String {
    /// Base64url in JWTs carries no padding.
    fileprivate func trimmingPadding() -> String {
        var text = self
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
