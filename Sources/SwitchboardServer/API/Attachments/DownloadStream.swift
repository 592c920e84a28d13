import SwitchboardAttachmentStore
import SwitchboardAttachments
import SwitchboardChatCore
import SwitchboardHTTP
import SwitchboardIO
import SwitchboardSystem

/// One download on its connection's loop: the attachment looked up, the head
/// answered, then the bytes read from storage a piece at a time and written
/// as the connection drains, so that a file of any size costs at most the
/// piece being read and the piece the socket has not taken yet.
///
/// Loop-confined; storage answers through the loop's queue.
final class DownloadStream<IO: ConnectionIO> {
    let service: AttachmentService
    let plan: DownloadPlan
    let request: HTTPRequest
    private weak var handler: HTTPConnectionHandler<IO>?
    private weak var connection: IO?
    private let handoff: LoopHandoff
    /// The next byte to read, and how many are still to send.
    private var offset: Int64 = 0
    private var remaining: Int64 = 0
    /// The last piece was queued behind a full socket: read on when it drains.
    private var waitingForDrain = false
    private(set) var isDone = false

    init(
        service: AttachmentService, plan: DownloadPlan, request: HTTPRequest, handler: HTTPConnectionHandler<IO>,
        connection: IO
    ) {
        self.service = service
        self.plan = plan
        self.request = request
        self.handler = handler
        self.connection = connection
        handoff = service.chat.cores.handoff(forLoop: connection.loop.index)
    }

    func start() {
        let bound = LoopBound(self)
        let handoff = handoff
        service.backend.lookup(id: plan.id) { result in handoff.post { bound.value.looked(result) } }
    }

    /// The connection can take more: the next piece is read.
    func drained() {
        guard waitingForDrain, !isDone else { return }
        waitingForDrain = false
        readNext()
    }

    /// The connection is gone: nothing more is read.
    func stop() { isDone = true }

    // MARK: Steps, each on the loop

    private func looked(_ result: Result<AttachmentRecord?, AttachmentStoreError>) {
        guard !isDone else { return }
        let record: AttachmentRecord
        switch result {
        case .failure(.notFound), .success(nil): return answer(DownloadRefusal.notFound().response)
        case .failure: return answer(DownloadRefusal.unavailable().response)
        case .success(let found?): record = found
        }
        // A deleted session's attachments are gone for everyone (docs/protocol.md).
        guard !record.sessionDeleted else { return answer(DownloadRefusal.notFound().response) }
        switch plan.variant {
        case .original:
            serve(record, contentType: record.contentType, size: record.size)
        case .thumbnail:
            guard let size = record.thumbnailSize else { return answer(DownloadRefusal.notFound().response) }
            sniffThumbnail(record, size: size)
        }
    }

    /// A thumbnail's type is its own (JPEG, or PNG for images with alpha),
    /// read from its first bytes.
    private func sniffThumbnail(_ record: AttachmentRecord, size: Int64) {
        let bound = LoopBound(self)
        let handoff = handoff
        service.backend.read(id: plan.id, variant: 1, offset: 0, length: 16) { result in
            handoff.post { bound.value.sniffed(result, record, size: size) }
        }
    }

    private func sniffed(_ result: Result<[UInt8], AttachmentStoreError>, _ record: AttachmentRecord, size: Int64) {
        guard !isDone else { return }
        guard case .success(let first) = result else { return answer(DownloadRefusal.unavailable().response) }
        var sniffer = ContentSniffer(allowed: [.png, .jpeg, .gif, .webp])
        let progress = first.withUnsafeBytes { sniffer.feed($0) }
        guard case .accepted(let type) = progress else { return answer(DownloadRefusal.unavailable().response) }
        serve(record, contentType: type.mediaType, size: size)
    }

    private func serve(_ record: AttachmentRecord, contentType: String, size: Int64) {
        let decision = DownloadHeaders.decide(
            request, contentType: contentType, size: size, sha256: record.sha256, filename: record.filename,
            expires: plan.expires, now: UnixClock.nowSeconds())
        switch decision {
        case .answer(let response):
            answer(response)
        case .bytes(let head, let first, let length):
            guard let handler, let connection, connection.isOpen else { return stop() }
            handler.downloadHead(head, length: length, on: connection)
            offset = first
            remaining = request.method == .head ? 0 : length
            if remaining == 0 { return complete() }
            readNext()
        }
    }

    private func readNext() {
        let bound = LoopBound(self)
        let handoff = handoff
        let length = Int(min(Int64(service.sizes.read), remaining))
        service.backend.read(id: plan.id, variant: plan.storedVariant, offset: offset, length: length) { result in
            handoff.post { bound.value.got(result) }
        }
    }

    private func got(_ result: Result<[UInt8], AttachmentStoreError>) {
        guard !isDone, let connection, connection.isOpen else { return stop() }
        // The head promised the length: a failure now can only cut the connection.
        guard case .success(let bytes) = result, !bytes.isEmpty, Int64(bytes.count) <= remaining else {
            stop()
            connection.closeNow()
            return
        }
        let outcome = connection.write(bytes)
        service.metrics.attachmentBytesServed.increment(by: bytes.count)
        offset += Int64(bytes.count)
        remaining -= Int64(bytes.count)
        if remaining == 0 { return complete() }
        switch outcome {
        case .sent: readNext()
        case .queued, .overLimit: waitingForDrain = true
        case .dropped: stop()
        }
    }

    private func answer(_ response: HTTPResponse) {
        isDone = true
        guard let handler, let connection else { return }
        handler.downloadAnswered(response, on: connection)
    }

    private func complete() {
        isDone = true
        guard let handler, let connection else { return }
        handler.downloadCompleted(on: connection)
    }
}
