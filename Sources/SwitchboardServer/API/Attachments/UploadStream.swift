import SwitchboardAttachmentStore
import SwitchboardAttachments
import SwitchboardChat
import SwitchboardChatCore
import SwitchboardCrypto
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardJSON
import SwitchboardMetrics
import SwitchboardSystem

/// One upload's body on its connection's loop (docs/attachments.md, "The
/// path of an upload"): each piece is sniffed, hashed, counted and copied to
/// storage in pieces of at most 64 KiB; the connection stops reading while
/// the window is full and goes on as storage reports pieces stored. The
/// upload is committed once the body has ended and the session is known to
/// be the uploader's; anything refused is answered as soon as it is known.
///
/// Loop-confined. Storage and the reader pool answer through the loop's
/// queue (`LoopHandoff`), so nothing here is touched from another thread.
final class UploadStream<IO: ConnectionIO> {
    enum Phase {
        /// Body pieces are arriving.
        case receiving
        /// The body is complete; waiting for the session's check.
        case bodyDone
        /// `finish` is with storage.
        case finishing
        /// Answered, or abandoned.
        case ended
    }

    /// What the reader pool found of the session.
    enum SessionVerdict: Sendable {
        case visible
        case refused(HTTPResponse, AttachmentUploadOutcome)
    }

    let service: AttachmentService
    let upload: any AttachmentUploading
    let new: NewAttachment
    /// The uploader's `Content-Type`, which must agree with the sniffed type.
    let declaredType: String?
    private weak var handler: HTTPConnectionHandler<IO>?
    private weak var connection: IO?
    /// The way back to this connection's loop for storage's answers.
    private let handoff: LoopHandoff

    private(set) var phase = Phase.receiving
    private var sessionVisible = false
    private var sniffer: ContentSniffer
    private var sniffed: AttachmentType?
    private let hasher = SHA256.Hasher()
    private(set) var size: Int64 = 0
    /// Bytes appended and not yet reported stored; at most `window`.
    private(set) var unstored = 0
    let window: Int
    /// The budget this upload holds; given back as it ends and its last pieces are stored.
    private var reserved: Int

    init(
        service: AttachmentService, upload: any AttachmentUploading, new: NewAttachment, declaredType: String?,
        window: Int, handler: HTTPConnectionHandler<IO>, connection: IO
    ) {
        self.service = service
        self.upload = upload
        self.new = new
        self.declaredType = declaredType
        self.window = window
        reserved = window
        sniffer = ContentSniffer(allowed: service.allowedTypes)
        self.handler = handler
        self.connection = connection
        handoff = service.chat.cores.handoff(forLoop: connection.loop.index)
    }

    /// Body bytes the window takes now.
    var room: Int { phase == .receiving ? max(0, window - unstored) : 0 }

    var isReceiving: Bool { phase == .receiving }

    /// The body is waiting for storage, not for the client: no idle timeout.
    var isWaitingForStorage: Bool { phase == .receiving && unstored >= window }

    // MARK: From the connection

    /// A piece of the body, at most `room` bytes.
    func receive(_ piece: UnsafeRawBufferPointer) {
        guard phase == .receiving, !piece.isEmpty else { return }
        size += Int64(piece.count)
        hasher.update(piece)
        if sniffed == nil {
            switch sniffer.feed(piece) {
            case .undecided: break
            case .accepted(let type):
                sniffed = type
                if !ContentSniffer.check(declared: declaredType, sniffed: type) {
                    return refuse(SniffRefusal.mismatch(sniffed: type, declared: declaredType ?? ""))
                }
            case .refused(let refusal):
                return refuse(refusal)
            }
        }
        var start = 0
        while start < piece.count {
            let end = min(piece.count, start + service.sizes.piece)
            upload.append(Array(UnsafeRawBufferPointer(rebasing: piece[start..<end])))
            start = end
        }
        unstored += piece.count
    }

    /// The body has ended: what is left is the session's check and the commit.
    func bodyEnded() {
        guard phase == .receiving else { return }
        phase = .bodyDone
        switch sniffer.finish() {
        case .failure(let refusal):
            return refuse(refusal)
        case .success(let type):
            if !ContentSniffer.check(declared: declaredType, sniffed: type) {
                return refuse(SniffRefusal.mismatch(sniffed: type, declared: declaredType ?? ""))
            }
            sniffed = type
        }
        commitIfReady()
    }

    /// The client went away, stalled, or broke the body's framing: the upload
    /// is abandoned without an answer (the caller answers a broken framing).
    /// One already committing is left to finish (it is then an orphan, which
    /// the purge deletes unless it is sent).
    func abandon(_ outcome: AttachmentUploadOutcome) {
        guard phase == .receiving || phase == .bodyDone else { return }
        upload.abort()
        end(outcome)
    }

    // MARK: From the reader pool and storage (on the loop)

    func sessionChecked(_ verdict: SessionVerdict) {
        guard phase != .ended else { return }
        switch verdict {
        case .refused(let response, let outcome):
            upload.abort()
            answer(response, outcome)
        case .visible:
            sessionVisible = true
            commitIfReady()
        }
    }

    /// Storage has written `count` more bytes: the window takes them again.
    func stored(_ count: Int) {
        unstored -= count
        if phase == .ended {
            let giveBack = min(count, reserved)
            reserved -= giveBack
            service.budget.release(giveBack)
            return
        }
        if room > 0, let handler, let connection { handler.uploadHasRoom(on: connection) }
    }

    func finished(_ result: Result<AttachmentRecord, AttachmentStoreError>) {
        guard phase == .finishing else { return }
        switch result {
        case .success(let record):
            service.metrics.attachmentBytesStored.increment(by: Int(record.size))
            answer(.apiJSON(.created, body(record)), .stored)
        case .failure(let error):
            let (response, outcome) = Self.refusal(error)
            answer(response, outcome)
        }
    }

    // MARK: Ending

    private func commitIfReady() {
        guard phase == .bodyDone, sessionVisible, let type = sniffed else { return }
        phase = .finishing
        let bound = LoopBound(self)
        let handoff = handoff
        upload.finish(type: type.mediaType, size: size, sha256: hasher.finalizeHex()) { result in
            handoff.post { bound.value.finished(result) }
        }
    }

    private func refuse(_ refusal: SniffRefusal) {
        upload.abort()
        answer(.api(ChatError(.badRequest, refusal.message)).withStatus(.unsupportedMediaType), .unsupportedType)
    }

    /// The answer; while the body is still arriving, the connection closes after it.
    private func answer(_ response: HTTPResponse, _ outcome: AttachmentUploadOutcome) {
        let closing = phase == .receiving
        end(outcome)
        guard let handler, let connection else { return }
        handler.uploadAnswered(response, closing: closing, on: connection)
    }

    private func end(_ outcome: AttachmentUploadOutcome) {
        phase = .ended
        service.metrics.attachmentUploads(outcome).increment()
        // What storage has not reported yet is given back as it does.
        let giveBack = reserved - unstored
        reserved -= giveBack
        service.budget.release(giveBack)
    }

    /// `{"attachment":{...}}` with signed URLs.
    private func body(_ record: AttachmentRecord) -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("attachment")
        AttachmentObject(record).appendJSON(
            to: &writer, signer: service.signer, expires: UnixClock.nowSeconds() + service.urlTTLSeconds)
        writer.endObject()
        return writer.bytes
    }

    /// What a storage failure answers (docs/attachments.md: quota 413, refused image 415).
    static func refusal(_ error: AttachmentStoreError) -> (HTTPResponse, AttachmentUploadOutcome) {
        switch error {
        case .quotaExceeded:
            return (.api(ChatError(.tooLarge, "the session's attachment quota is used up")), .tooLarge)
        case .imageRefused(let message):
            return (
                .api(ChatError(.badRequest, "the image was refused: \(message)")).withStatus(.unsupportedMediaType),
                .unsupportedType
            )
        case .noSession, .notFound:
            return (.api(ChatError(.notFound, "no such session")), .notFound)
        case .unavailable:
            var response = HTTPResponse.api(ChatError(.unavailable, "attachment storage is unavailable; retry later"))
            response.headers.append(("Retry-After", "1"))
            return (response, .failed)
        }
    }
}

extension AttachmentObject {
    /// The protocol's object of a committed attachment.
    init(_ record: AttachmentRecord) {
        self.init(
            id: record.id, filename: record.filename, contentType: record.contentType, size: record.size,
            sha256: record.sha256, width: record.width, height: record.height, hasThumbnail: record.hasThumbnail)
    }
}

extension HTTPResponse {
    /// The same answer under another status (415 carries the protocol's `bad_request` code).
    func withStatus(_ status: HTTPStatus) -> HTTPResponse {
        var response = self
        response.status = status
        return response
    }
}
