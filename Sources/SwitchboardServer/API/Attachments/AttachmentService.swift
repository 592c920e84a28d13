import SwitchboardAdmission
import SwitchboardAttachments
import SwitchboardMetrics

/// What every upload and download shares, whichever loop serves it: the
/// storage, the URL signer, the in-flight budget, the limits, the per-address
/// upload rate. Immutable or synchronized; the per-request state machines
/// (`UploadStream`, `DownloadStream`) live on their connection's loop.
final class AttachmentService: Sendable {
    /// The sizes uploads and downloads move bytes in; tests make them small.
    struct Sizes: Sendable {
        /// The bytes an upload may have received and not yet had stored:
        /// reserved from the budget when it starts, the most it ever holds. At
        /// least the store's chunk (256 KiB), which PostgreSQL storage writes whole.
        var window = 256 * 1024
        /// The most one `append` carries.
        var piece = 64 * 1024
        /// The most one read of a download asks of storage: with one piece
        /// queued to the socket and the next being read, a download holds two at most.
        var read = 256 * 1024

        static let standard = Sizes()
    }

    let sizes: Sizes

    let backend: any AttachmentBackend
    let chat: ChatService
    let signer: AttachmentURLSigner
    let budget: InFlightBudget
    let metrics: GatewayMetrics
    let maxBytes: Int
    let allowedTypes: Set<AttachmentType>
    let urlTTLSeconds: Int64
    let sessionQuotaBytes: Int64
    /// Per connection and per address; 0: no limit.
    let uploadsPerMinute: Int
    /// Uploads per client address (a rate a minute, no count), nil without a limit.
    let addressRate: AddressLimiter?
    /// Addresses the per-address limits do not apply to (`server.ip_limit_exempt`).
    let exempt: IPNetworkSet

    init(
        configuration: Configuration, backend: any AttachmentBackend, chat: ChatService, metrics: GatewayMetrics,
        exempt: IPNetworkSet, sizes: Sizes = .standard
    ) {
        self.sizes = sizes
        self.backend = backend
        self.chat = chat
        self.metrics = metrics
        self.exempt = exempt
        signer = AttachmentURLSigner(jwtSecret: Array(configuration.jwtSecret.utf8))
        budget = InFlightBudget(limit: configuration.attachmentsMaxInFlightBytes)
        maxBytes = configuration.attachmentsMaxBytes
        allowedTypes = configuration.attachmentTypes
        urlTTLSeconds = Int64(configuration.attachmentsURLTTLSeconds)
        sessionQuotaBytes = Int64(configuration.attachmentsSessionQuotaBytes)
        uploadsPerMinute = configuration.attachmentsUploadsPerMinute
        addressRate =
            uploadsPerMinute > 0
            ? AddressLimiter(
                limits: AddressLimiter.Limits(
                    maxConnections: 0, ratePerSecond: 0, burst: uploadsPerMinute,
                    tableCapacity: configuration.ipTableEntries, ratePerMinute: uploadsPerMinute))
            : nil
        let budget = budget
        metrics.setPullSource(for: metrics.attachmentInFlightBytes) { Double(budget.inUse) }
    }

    /// Takes one upload from `address`'s rate: nil if allowed, else the seconds to wait.
    func takeAddressRate(_ address: IPAddress?, nowMilliseconds now: UInt64) -> Int? {
        guard let limiter = addressRate, let address, !exempt.contains(address) else { return nil }
        switch limiter.acquire(address, nowMilliseconds: now) {
        case .admitted:
            limiter.release(address, nowMilliseconds: now)  // a rate, not a count of open uploads
            return nil
        case .untracked, .tooManyConnections:
            return nil
        case .tooFast(let seconds):
            return seconds
        }
    }
}
