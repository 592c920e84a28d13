import SwitchboardAttachmentStore
import SwitchboardAttachments
import SwitchboardHTTP
import SwitchboardSystem

/// A download whose signed URL checked out: which file, and until when the URL holds.
struct DownloadPlan: Sendable, Equatable {
    let id: String
    let variant: AttachmentVariant
    /// The URL's `exp` (Unix seconds): the answer is cached no longer.
    let expires: Int64

    /// `GET /api/v1/attachments/{id}[/thumbnail]?exp=E&sig=S`: the plan, or
    /// the 403 of a URL that is not ours or has expired (docs/attachments.md, "Signed URLs").
    static func check(
        _ request: HTTPRequest, parameters: [String: String], variant: AttachmentVariant, signer: AttachmentURLSigner,
        now: Int64 = UnixClock.nowSeconds()
    ) -> Result<DownloadPlan, DownloadRefusal> {
        guard let id = parameters["id"], let expiresText = request.queryItem("exp"),
            let expires = Int64(expiresText), let signature = request.queryItem("sig")
        else { return .failure(.forbidden("a signed URL (exp and sig) is required")) }
        switch signer.verify(id: id, variant: variant, expires: expires, signature: signature, now: now) {
        case .valid: return .success(DownloadPlan(id: id, variant: variant, expires: expires))
        case .expired: return .failure(.forbidden("the URL has expired"))
        case .invalid: return .failure(.forbidden("the URL's signature is not valid"))
        }
    }

    /// The storage's number for the variant.
    var storedVariant: Int16 { variant == .thumbnail ? 1 : 0 }
}

/// Why a download is not served; every such answer carries the serving headers too.
struct DownloadRefusal: Error, Equatable {
    let response: HTTPResponse

    static func forbidden(_ message: String) -> DownloadRefusal {
        DownloadRefusal(response: DownloadHeaders.secured(.error(.forbidden, code: "forbidden", message: message)))
    }

    static func notFound() -> DownloadRefusal {
        DownloadRefusal(
            response: DownloadHeaders.secured(.error(.notFound, code: "not_found", message: "no such attachment")))
    }

    static func unavailable() -> DownloadRefusal {
        var response = HTTPResponse.error(
            .serviceUnavailable, code: "unavailable", message: "attachment storage is unavailable; retry later")
        response.headers.append(("Retry-After", "1"))
        return DownloadRefusal(response: DownloadHeaders.secured(response))
    }

    static func == (lhs: DownloadRefusal, rhs: DownloadRefusal) -> Bool {
        lhs.response.status == rhs.response.status && lhs.response.body == rhs.response.body
    }
}
