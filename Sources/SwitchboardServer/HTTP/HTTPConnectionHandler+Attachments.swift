import SwitchboardAttachmentStore
import SwitchboardChat
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardMetrics
import SwitchboardReaders

/// Attachments on one connection: an upload's body streamed to storage
/// through its window, a download's bytes streamed from storage as the socket
/// drains (docs/attachments.md). The state machines are `UploadStream` and
/// `DownloadStream`; this is where they meet the connection.
extension HTTPConnectionHandler {
    // MARK: Uploads

    /// The head of `POST /api/v1/sessions/{id}/attachments` (the only route whose
    /// body is streamed): checked, then storage and the session's check started.
    /// A refusal closes the connection after its answer, the body unread.
    func startUpload(_ head: HTTPRequest, body: HTTPStreamedBody, on connection: IO) {
        route = .attachmentUpload
        uploadHead = head
        // Behind a trusted proxy, the first request names the client (and may be refused).
        if let proxied, proxied.pending {
            proxied.identify(from: head, on: connection)
            if !connection.isOpen { return }
        }
        guard let service = context.attachments,
            case .found(.attachmentUpload, let parameters) = context.router.match(method: head.method, path: head.path)
        else {
            return refuseUpload(
                UploadAdmission.Refusal(.api(ChatError(.unavailable, "attachments are not served here")), .failed),
                on: connection)
        }
        let checked = UploadAdmission.check(
            head, body: body, parameters: parameters, service: service, client: clientAddress,
            connectionRate: &uploadRate, nowMilliseconds: connection.loop.now)
        let accepted: UploadAdmission.Accepted
        switch checked {
        case .failure(let refusal): return refuseUpload(refusal, on: connection)
        case .success(let ok): accepted = ok
        }
        guard service.budget.reserve(accepted.window) else {
            return refuseUpload(
                .retryLater(
                    .serviceUnavailable, ChatError(.overloaded, "too many uploads in progress; retry later"),
                    seconds: 1,
                    .overloaded), on: connection)
        }
        let identity = accepted.identity
        let new = NewAttachment(
            id: UploadAdmission.newID(), workspaceID: identity.workspaceID, sessionID: accepted.sessionID,
            uploaderRole: identity.role.rawValue, uploaderID: identity.id, filename: accepted.filename)
        let handoff = service.chat.cores.handoff(forLoop: connection.loop.index)
        let slot = LoopSlot<UploadStream<IO>>()
        let begun = service.backend.beginUpload(new, sessionQuotaBytes: service.sessionQuotaBytes) { count in
            handoff.post { slot.value?.stored(count) }
        }
        guard let storage = begun else {
            service.budget.release(accepted.window)
            return refuseUpload(
                .retryLater(
                    .serviceUnavailable, ChatError(.overloaded, "the attachment workers are busy; retry later"),
                    seconds: 1, .overloaded), on: connection)
        }
        let stream = UploadStream(
            service: service, upload: storage, new: new, declaredType: accepted.declaredType, window: accepted.window,
            handler: self, connection: connection)
        slot.value = stream
        upload = stream
        // The session is checked on the reader pool while the first bytes fill the window.
        let sessionID = accepted.sessionID
        let checkSession: @Sendable (ChatQueries) -> UploadStream<IO>.SessionVerdict = { queries in
            do throws(QueryError) {
                switch try visibleSession(sessionID, to: identity, in: queries) {
                case .visible: return .visible
                case .refused(let response):
                    let outcome: AttachmentUploadOutcome =
                        switch response.status.code {
                        case 403: .forbidden
                        case 404: .notFound
                        default: .failed
                        }
                    return .refused(response, outcome)
                }
            } catch {
                return .refused(.api(ChatError(error)), .failed)
            }
        }
        let submitted = service.chat.readers.run(checkSession, thenOn: handoff, first: true) { verdict in
            slot.value?.sessionChecked(verdict)
        }
        if !submitted {
            return stream.sessionChecked(
                .refused(.api(ChatError(.overloaded, "too many requests in flight; retry later")), .overloaded))
        }
        // RFC 9110 10.1.1: a client that waits for it sends the body now.
        if head.version == .http11, head.headers.first("Expect")?.lowercased() == "100-continue" {
            connection.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        }
        connection.setTimer(afterMilliseconds: context.headerTimeoutMilliseconds)
    }

    private func refuseUpload(_ refusal: UploadAdmission.Refusal, on connection: IO) {
        context.metrics.attachmentUploads(refusal.outcome).increment()
        uploadAnswered(refusal.response, closing: true, on: connection)
    }

    /// The window is full: the rest of this read waits in `held`, and the socket's
    /// input in the kernel, until storage has taken some of the window.
    func waitForStorage(_ rest: UnsafeRawBufferPointer, on connection: IO) {
        waitingForStorage = true
        hold(rest, on: connection)
        connection.pauseReading()
    }

    /// Storage took some of the window: what waited is handled, then reading goes on.
    func uploadHasRoom(on connection: IO) {
        guard waitingForStorage, connection.isOpen, connection.handler === self else { return }
        waitingForStorage = false
        var pending: [UInt8] = []
        swap(&pending, &held)
        if !pending.isEmpty { pending.withUnsafeMutableBytes { received($0, on: connection) } }
        if !waitingForStorage && connection.isOpen { connection.resumeReading() }
    }

    /// The upload's answer. `closing`: the body was not read to its end, so what
    /// follows cannot be framed and the connection closes after the answer.
    func uploadAnswered(_ response: HTTPResponse, closing: Bool, on connection: IO) {
        upload = nil
        waitingForStorage = false
        guard let head = uploadHead else { return }
        uploadHead = nil
        guard connection.isOpen, connection.handler === self else { return }
        if closing {
            held = []
            awaitingResponse = false
            var unread = head
            unread.keepAlive = false
            respond(response, to: unread, on: connection)
        } else {
            finish(response, to: head, on: connection)
        }
    }

    // MARK: Downloads

    /// A signed download: its lookup and bytes come from storage; meanwhile the
    /// connection reads on but holds its input, as for any pending answer.
    func startDownload(_ plan: DownloadPlan, for request: HTTPRequest, on connection: IO) {
        guard let service = context.attachments else {
            return respond(DownloadRefusal.unavailable().response, to: request, on: connection)
        }
        awaitingResponse = true
        let stream = DownloadStream(
            service: service, plan: plan, request: request, handler: self, connection: connection)
        download = stream
        stream.start()
    }

    /// The head of the download's bytes, which follow in pieces.
    func downloadHead(_ head: HTTPResponse, length: Int64, on connection: IO) {
        guard let request = download?.request else { return }
        downloadKeepsAlive = beginResponse(head, to: request, streamedLength: length, on: connection)
    }

    /// The download's last byte is written.
    func downloadCompleted(on connection: IO) {
        download = nil
        awaitingResponse = false
        guard connection.isOpen, connection.handler === self else { return }
        endResponse(keepAlive: downloadKeepsAlive, on: connection)
        continueAfterAnswer(on: connection)
    }

    /// A download answered without its bytes (304, 404, 416, ...).
    func downloadAnswered(_ response: HTTPResponse, on connection: IO) {
        guard let request = download?.request else { return }
        download = nil
        finish(response, to: request, on: connection)
    }
}

/// A loop-confined object that other threads' callbacks find only once it
/// exists (storage's `onStored` is given before the upload is made).
final class LoopSlot<Value: AnyObject>: @unchecked Sendable {
    var value: Value?
}
