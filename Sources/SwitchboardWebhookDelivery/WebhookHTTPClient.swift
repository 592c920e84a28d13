import CCurl
import SwitchboardSystem
import SwitchboardWebhooks

/// POSTs webhooks through a libcurl multi handle: many requests at once on
/// the calling thread, each started with `start` and collected by `poll`.
/// The multi handle keeps finished requests' connections open (keep-alive),
/// so the next request to the same origin goes out on one of them.
///
/// One client per thread, used only by it (libcurl's handles are not
/// thread-safe); no libcurl pointer leaves this module.
public final class WebhookHTTPClient {
    public struct Settings: Sendable, Equatable {
        public var connectTimeoutMilliseconds: Int
        /// The whole request, connecting included.
        public var timeoutMilliseconds: Int
        /// Lets requests reach loopback, private and link-local addresses (`webhooks.allow_private_targets`).
        public var allowPrivateTargets: Bool
        /// Open connections kept between requests, over all origins.
        public var maximumIdleConnections: Int
        /// A PEM file of the certificate authorities HTTPS receivers are
        /// checked against, instead of the system's (tests, private CAs).
        public var trustedCertificatesPath: String?

        public init(
            connectTimeoutMilliseconds: Int = 5000, timeoutMilliseconds: Int = 10_000,
            allowPrivateTargets: Bool = false,
            maximumIdleConnections: Int = 64, trustedCertificatesPath: String? = nil
        ) {
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.timeoutMilliseconds = timeoutMilliseconds
            self.allowPrivateTargets = allowPrivateTargets
            self.maximumIdleConnections = maximumIdleConnections
            self.trustedCertificatesPath = trustedCertificatesPath
        }
    }

    /// Response body bytes read at most: past them the request stops reading
    /// (the status line has decided already), so that a receiver cannot make
    /// us read without end.
    public static let maximumResponseBytes = 64 * 1024

    private let settings: Settings
    private let multi: UnsafeMutableRawPointer
    private var idle: [CurlTransfer] = []
    private var active: [Int: CurlTransfer] = [:]
    /// Requests ended and not handed out yet: those that failed before libcurl
    /// had them (a URL it refused), and those `send` collected for others.
    private var ended: [(tag: Int, response: WebhookHTTPResponse)] = []
    /// `send`'s own tags, far from any a caller of `start` would use.
    private var sendTag = Int.min

    public init(settings: Settings) throws(WebhookHTTPError) {
        try CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { throw .setup("curl_multi_init failed") }
        self.multi = multi
        self.settings = settings
        _ = sb_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, settings.maximumIdleConnections)
    }

    deinit {
        for transfer in active.values { curl_multi_remove_handle(multi, transfer.handle) }
        active.removeAll()
        idle.removeAll()
        curl_multi_cleanup(multi)
    }

    /// Requests started and not yet collected.
    public var inFlight: Int { active.count + ended.count }

    /// Starts a POST; `poll` gives its response back under `tag` (unique among those in flight).
    public func start(_ request: WebhookHTTPRequest, tag: Int) {
        precondition(active[tag] == nil, "tag \(tag) is in flight already")
        do throws(WebhookHTTPError) {
            let transfer: CurlTransfer
            if let reused = idle.popLast() {
                transfer = reused
            } else {
                transfer = try CurlTransfer(settings: settings)
            }
            do throws(WebhookHTTPError) {
                try transfer.prepare(request, tag: tag)
            } catch {
                idle.append(transfer)
                throw error
            }
            let code = curl_multi_add_handle(multi, transfer.handle)
            guard code == CURLM_OK else {
                idle.append(transfer)
                throw .setup("curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(code)))")
            }
            active[tag] = transfer
        } catch {
            ended.append((tag, failure(error)))
        }
    }

    /// Moves the requests along: waits until one of their sockets is ready,
    /// `wake` is signalled, or `timeoutMilliseconds` pass (not at all when
    /// some have ended already), then returns the requests that have ended.
    public func poll(timeoutMilliseconds: Int, wake: EventFD? = nil) -> [(tag: Int, response: WebhookHTTPResponse)] {
        guard ended.isEmpty else {
            defer { ended.removeAll() }
            return ended + collect(waitingMilliseconds: 0, wake: nil)
        }
        return collect(waitingMilliseconds: timeoutMilliseconds, wake: wake)
    }

    /// One request from start to end, on the calling thread.
    public func send(_ request: WebhookHTTPRequest) -> WebhookHTTPResponse {
        sendTag += 1
        let tag = sendTag
        start(request, tag: tag)
        var others: [(tag: Int, response: WebhookHTTPResponse)] = []
        defer { ended += others }
        while true {
            for done in poll(timeoutMilliseconds: 1000) {
                if done.tag == tag { return done.response }
                others.append(done)
            }
        }
    }

    private func collect(waitingMilliseconds: Int, wake: EventFD?) -> [(tag: Int, response: WebhookHTTPResponse)] {
        var running: Int32 = 0
        // libcurl does what is due (new requests, timers) before waiting.
        _ = curl_multi_perform(multi, &running)
        var ready = finished()
        guard ready.isEmpty else { return ready }
        var extra = curl_waitfd(fd: wake?.fd ?? -1, events: Int16(CURL_WAIT_POLLIN), revents: 0)
        var numberReady: Int32 = 0
        let timeout = Int32(clamping: waitingMilliseconds)
        // curl_multi_poll waits for the requests' sockets and for libcurl's own
        // next timeout, whichever is first, and never longer than asked.
        _ = withUnsafeMutablePointer(to: &extra) { extra in
            curl_multi_poll(multi, wake == nil ? nil : extra, wake == nil ? 0 : 1, timeout, &numberReady)
        }
        wake?.drain()
        _ = curl_multi_perform(multi, &running)
        ready = finished()
        return ready
    }

    /// The requests libcurl reports done, taken off the multi handle.
    private func finished() -> [(tag: Int, response: WebhookHTTPResponse)] {
        var done: [(tag: Int, response: WebhookHTTPResponse)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            var context: UnsafeMutableRawPointer? = nil
            _ = sb_curl_getinfo_ptr(easy, CURLINFO_PRIVATE, &context)
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            done.append((transfer.tag, transfer.response(for: code)))
            curl_multi_remove_handle(multi, easy)
            active[transfer.tag] = nil
            idle.append(transfer)
        }
        return done
    }

    private func failure(_ error: WebhookHTTPError) -> WebhookHTTPResponse {
        WebhookHTTPResponse(
            statusCode: nil, error: error, responseHead: "", bodyBytesRead: 0, bodyCut: false, durationMilliseconds: 0,
            newConnections: 0)
    }
}
