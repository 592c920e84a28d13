import SwitchboardAdmission
import SwitchboardAuth
import SwitchboardChat
import SwitchboardCrypto
import SwitchboardHTTP
import SwitchboardIdentifiers
import SwitchboardMetrics

/// The checks an upload's head passes before a byte of its body is read
/// (docs/attachments.md, "The path of an upload", step 2): the bearer token,
/// the session id and file name, then the per-connection and per-address
/// upload rates. (A Content-Length over `attachments.max_bytes` never gets
/// here: the parser refuses it with the head.) The in-flight budget, storage
/// and the reader pool come next, in `HTTPConnectionHandler.startUpload`.
enum UploadAdmission {
    struct Accepted {
        let identity: Identity
        let sessionID: String
        let filename: String
        let declaredType: String?
        /// The window this upload reserves: 256 KiB, less for a smaller declared body.
        let window: Int
    }

    struct Refusal: Error {
        let response: HTTPResponse
        let outcome: AttachmentUploadOutcome

        init(_ response: HTTPResponse, _ outcome: AttachmentUploadOutcome) {
            self.response = response
            self.outcome = outcome
        }

        static func retryLater(
            _ status: HTTPStatus, _ error: ChatError, seconds: Int, _ outcome: AttachmentUploadOutcome
        )
            -> Refusal
        {
            var response = HTTPResponse.api(error).withStatus(status)
            response.headers.append(("Retry-After", String(seconds)))
            return Refusal(response, outcome)
        }
    }

    static func check(
        _ head: HTTPRequest, body: HTTPStreamedBody, parameters: [String: String], service: AttachmentService,
        client: IPAddress?, connectionRate: inout TokenBucket?, nowMilliseconds now: UInt64
    ) -> Result<Accepted, Refusal> {
        let identity: Identity
        do throws(ChatError) {
            identity = try APIRoutes.authenticate(head, service.chat.verifier)
        } catch {
            return .failure(Refusal(.api(error), .unauthorized))
        }
        guard let raw = parameters["id"], let sessionID = UUIDText.canonical(raw) else {
            return .failure(Refusal(.api(ChatError(.notFound, "no such session")), .notFound))
        }
        guard let filename = filename(head) else {
            return .failure(
                Refusal(
                    .api(.badRequest("\"filename\" is required: 1 to 255 bytes of UTF-8 without control characters")),
                    .badRequest))
        }
        if body == .length(0) {
            return .failure(
                Refusal(.api(.badRequest("the file is empty")).withStatus(.unsupportedMediaType), .unsupportedType))
        }
        if service.uploadsPerMinute > 0 {
            if connectionRate == nil {
                connectionRate = TokenBucket(
                    perMinute: service.uploadsPerMinute, burst: service.uploadsPerMinute, nowMilliseconds: now)
            }
            if !connectionRate!.take(nowMilliseconds: now) {
                let wait = connectionRate!.secondsUntilNextToken(nowMilliseconds: now)
                return .failure(tooFast(wait, "this connection"))
            }
            if let wait = service.takeAddressRate(client, nowMilliseconds: now) {
                return .failure(tooFast(wait, "this address"))
            }
        }
        var window = service.sizes.window
        if case .length(let length) = body { window = min(window, length) }
        return .success(
            Accepted(
                identity: identity, sessionID: sessionID, filename: filename,
                declaredType: head.headers.first("Content-Type"), window: window))
    }

    /// `?filename=`: 1 to 255 bytes of UTF-8, no control characters (it is shown,
    /// and served in a header, never used as a path).
    static func filename(_ request: HTTPRequest) -> String? {
        guard let name = request.queryItem("filename"), !name.isEmpty, name.utf8.count <= 255,
            !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else { return nil }
        return name
    }

    private static func tooFast(_ seconds: Int, _ who: String) -> Refusal {
        .retryLater(
            .tooManyRequests, ChatError(.rateLimited, "too many uploads from \(who); retry later"), seconds: seconds,
            .rateLimited)
    }

    /// A random (version 4) UUID, lower-case: a new attachment's id.
    static func newID() -> String {
        var bytes = SecureRandom.bytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }
            .joined(separator: "-")
    }
}
