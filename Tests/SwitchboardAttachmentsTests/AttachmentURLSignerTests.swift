import SwitchboardAttachments
import Testing

@Suite("AttachmentURLSigner")
struct AttachmentURLSignerTests {
    static let secret = Array("test-secret-that-is-at-least-32-bytes-long".utf8)
    static let id = "0f3c2a1e-8b7d-4c6a-9e5f-1a2b3c4d5e6f"
    static let expires: Int64 = 1_764_000_000
    let signer = AttachmentURLSigner(jwtSecret: secret)

    /// Computed outside Swift (Python's hmac, base64.urlsafe_b64encode without
    /// padding) from the construction in docs/attachments.md.
    @Test func pathsMatchAnIndependentComputation() {
        #expect(
            signer.path(id: Self.id, variant: .original, expires: Self.expires)
                == "/api/v1/attachments/\(Self.id)?exp=1764000000&sig=a_GRMKk1276gd5TeNxxJCrtaDn3jpbUj03buGyFSh0s")
        #expect(
            signer.path(id: Self.id, variant: .thumbnail, expires: Self.expires)
                == "/api/v1/attachments/\(Self.id)/thumbnail?exp=1764000000&sig=cGFWnU7UblnnXiWKgYXvT4JraXdcuSwm1ue8Rba5UfQ"
        )
    }

    func verify(
        id: String = id, variant: AttachmentVariant = .original, expires: Int64 = expires, signature: String,
        now: Int64 = expires - 60
    ) -> URLSignatureCheck {
        signer.verify(id: id, variant: variant, expires: expires, signature: signature, now: now)
    }

    var goodSignature: String { signer.signature(id: Self.id, variant: .original, expires: Self.expires) }

    @Test func roundTrip() {
        for variant in AttachmentVariant.allCases {
            let signature = signer.signature(id: Self.id, variant: variant, expires: Self.expires)
            #expect(signature.utf8.count == 43)
            #expect(verify(variant: variant, signature: signature) == .valid)
        }
    }

    /// Valid up to and including the second `exp`; expired from the next.
    @Test func expiryBoundary() {
        #expect(verify(signature: goodSignature, now: Self.expires - 1) == .valid)
        #expect(verify(signature: goodSignature, now: Self.expires) == .valid)
        #expect(verify(signature: goodSignature, now: Self.expires + 1) == .expired)
        #expect(verify(signature: goodSignature, now: Int64.max) == .expired)
    }

    @Test func tamperedFieldsAreInvalid() {
        #expect(verify(id: "0f3c2a1e-8b7d-4c6a-9e5f-1a2b3c4d5e6e", signature: goodSignature) == .invalid)
        #expect(verify(id: Self.id.uppercased(), signature: goodSignature) == .invalid)
        #expect(verify(variant: .thumbnail, signature: goodSignature) == .invalid)
        #expect(verify(expires: Self.expires + 1, signature: goodSignature) == .invalid)
        #expect(verify(expires: Self.expires - 1, signature: goodSignature) == .invalid)
    }

    @Test func tamperedSignaturesAreInvalid() {
        let good = Array(goodSignature)
        for index in good.indices {
            var changed = good
            changed[index] = changed[index] == "A" ? "B" : "A"
            #expect(verify(signature: String(changed)) == .invalid, "changed at \(index)")
        }
        #expect(verify(signature: String(good.dropLast())) == .invalid)
        #expect(verify(signature: goodSignature + "A") == .invalid)
        #expect(verify(signature: "") == .invalid)
    }

    /// Only the canonical form: no padding, no standard alphabet, no junk.
    @Test func malformedSignaturesAreInvalid() {
        #expect(goodSignature.contains("_"))
        #expect(verify(signature: goodSignature + "=") == .invalid)
        #expect(verify(signature: goodSignature.replacingUnderscores()) == .invalid)
        #expect(verify(signature: "!!!!") == .invalid)
        #expect(verify(signature: String(repeating: "*", count: 43)) == .invalid)
        #expect(verify(signature: " " + goodSignature) == .invalid)
    }

    @Test func anotherSecretIsInvalid() {
        let other = AttachmentURLSigner(jwtSecret: Array("another-secret-that-is-32-bytes-or-more".utf8))
        let signature = other.signature(id: Self.id, variant: .original, expires: Self.expires)
        #expect(signature != goodSignature)
        #expect(verify(signature: signature) == .invalid)
    }

    /// The signature is checked first: an expired URL with a bad signature is invalid.
    @Test func badSignatureBeatsExpiry() {
        #expect(verify(signature: "x", now: Self.expires + 100) == .invalid)
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "/" : $0 == "-" ? "+" : $0 })
    }
}
