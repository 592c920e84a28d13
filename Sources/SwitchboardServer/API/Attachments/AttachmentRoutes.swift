import SwitchboardAttachments
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardMetrics

/// The attachment routes (docs/protocol.md, "Attachments"), beside the JSON
/// API's table: the upload's body is streamed by the connection
/// (`HTTPConnectionHandler.startUpload`), the downloads answer from storage
/// (`DownloadStream`); both are CORS-enabled like the API (the widget uploads
/// from the host page's origin with a bearer token).
enum AttachmentRoutes {
    static let all: [(HTTPMethod, String, HTTPRoute)] = [
        (.post, "/api/v1/sessions/{id}/attachments", .attachmentUpload),
        (.get, "/api/v1/attachments/{id}", .attachment),
        (.get, "/api/v1/attachments/{id}/thumbnail", .attachmentThumbnail),
    ]

    static let labels: Set<HTTPRoute> = Set(all.map(\.2))

    static func answer(
        _ route: HTTPRoute, _ request: HTTPRequest, parameters: [String: String], service: AttachmentService?
    ) -> HTTPAnswer {
        guard let service else {
            return .now(DownloadHeaders.secured(.api(ChatError(.unavailable, "attachments are not served here"))))
        }
        switch route {
        case .attachment, .attachmentThumbnail:
            let variant: AttachmentVariant = route == .attachment ? .original : .thumbnail
            switch DownloadPlan.check(request, parameters: parameters, variant: variant, signer: service.signer) {
            case .success(let plan): return .download(plan)
            case .failure(let refusal): return .now(refusal.response)
            }
        default:
            // The parser streams every upload's body; a buffered one cannot arrive.
            return .now(.api(.badRequest("an upload's body must be streamed")))
        }
    }
}
