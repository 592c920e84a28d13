import CCurl
import SwitchboardSystem
import SwitchboardWebhooks

#if canImport(Glibc)
import Glibc
#endif

/// One libcurl easy handle and the state of the request it carries. The
/// options that never change are set once; a handle serves request after
/// request, and the connections live in the multi handle's cache, not here.
///
/// libcurl calls back into this object (the body, the socket to open) through
/// pointers to it that only the handle holds: the object owns the handle and
/// frees it first, so no callback can outlive it.
final class CurlTransfer {
    let handle: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let headerLines = CurlHeaderList()
    private let allowPrivateTargets: Bool

    // The request under way.
    private(set) var tag = 0
    private var startedAt: UInt64 = 0
    private var head: [UInt8] = []
    private var bodyBytesRead = 0
    private var bodyCut = false
    private var refusedAddress: TargetAddress?
    /// The request's body, which libcurl reads from here (CURLOPT_POSTFIELDS)
    /// until the request ends: kept by the transfer, grown when a body needs
    /// more, reused by the next request.
    private var bodyBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)

    init(settings: WebhookHTTPClient.Settings) throws(WebhookHTTPError) {
        try CurlGlobal.initialize()
        guard let handle = curl_easy_init() else { throw .setup("curl_easy_init failed") }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        allowPrivateTargets = settings.allowPrivateTargets
        let this = Unmanaged.passUnretained(self).toOpaque()
        try check(sb_curl_setopt_ptr(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(sb_curl_setopt_ptr(handle, CURLOPT_PRIVATE, this), "CURLOPT_PRIVATE")
        // Threads of our own, no signals: libcurl must not use SIGALRM for DNS timeouts.
        try check(sb_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(sb_curl_setopt_str(handle, CURLOPT_PROTOCOLS_STR, "http,https"), "CURLOPT_PROTOCOLS_STR")
        try check(sb_curl_setopt_str(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"), "CURLOPT_REDIR_PROTOCOLS_STR")
        // A 3xx is an answer, and a failed attempt: following it would send the
        // event (and its signature) to a place nobody configured.
        try check(sb_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0), "CURLOPT_FOLLOWLOCATION")
        // No proxy, whatever http_proxy and friends say: the address checked
        // when the socket opens must be the receiver's.
        try check(sb_curl_setopt_str(handle, CURLOPT_PROXY, ""), "CURLOPT_PROXY")
        // HTTP/1.1 everywhere: every receiver speaks it, and a request in flight is a connection.
        try check(
            sb_curl_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)),
            "CURLOPT_HTTP_VERSION")
        try check(
            sb_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds),
            "CURLOPT_CONNECTTIMEOUT_MS")
        try check(sb_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, settings.timeoutMilliseconds), "CURLOPT_TIMEOUT_MS")
        // Certificates are always verified (libcurl's default); only the authorities may change.
        if let path = settings.trustedCertificatesPath {
            try check(sb_curl_setopt_str(handle, CURLOPT_CAINFO, path), "CURLOPT_CAINFO")
        }
        let receiveBody: curl_write_callback = { data, size, count, context in
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
            return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
        }
        try check(sb_curl_setopt_write_function(handle, CURLOPT_WRITEFUNCTION, receiveBody), "CURLOPT_WRITEFUNCTION")
        try check(sb_curl_setopt_ptr(handle, CURLOPT_WRITEDATA, this), "CURLOPT_WRITEDATA")
        let openCheckedSocket: curl_opensocket_callback = { context, _, address in
            guard let context, let address else { return CURL_SOCKET_BAD }
            return Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().openSocket(address)
        }
        try check(sb_curl_setopt_opensocket_function(handle, openCheckedSocket), "CURLOPT_OPENSOCKETFUNCTION")
        try check(sb_curl_setopt_ptr(handle, CURLOPT_OPENSOCKETDATA, this), "CURLOPT_OPENSOCKETDATA")
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
        bodyBuffer.deallocate()
    }

    /// Sets the URL, headers and body of the next request.
    func prepare(_ request: WebhookHTTPRequest, tag: Int) throws(WebhookHTTPError) {
        self.tag = tag
        startedAt = MonotonicClock.nanoseconds()
        head.removeAll(keepingCapacity: true)
        bodyBytesRead = 0
        bodyCut = false
        refusedAddress = nil
        errorBuffer[0] = 0
        guard sb_curl_setopt_str(handle, CURLOPT_URL, request.url) == CURLE_OK else {
            throw .invalidURL("libcurl cannot use the endpoint's URL")
        }
        // An empty "Expect:" keeps libcurl from asking for 100-continue before
        // bodies over 1 KiB, which costs a second per request with receivers
        // that do not answer it.
        let headerList = headerLines.fill(request.headers, extra: ["Expect:"])
        try check(sb_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList), "CURLOPT_HTTPHEADER")
        // One copy of the body, into memory that outlives the request (libcurl
        // does not copy what CURLOPT_POSTFIELDS points at). The buffer is
        // never empty, so its pointer is valid for an empty body too.
        var body = request.body
        let length = body.utf8.count
        if length > bodyBuffer.count {
            bodyBuffer.deallocate()
            bodyBuffer = .allocate(byteCount: length, alignment: 1)
        }
        // One memcpy of the string's own bytes: initializing from the UTF-8
        // view went byte by byte (3% of the gateway's samples in a drain).
        body.withUTF8 { bodyBuffer.copyMemory(from: UnsafeRawBufferPointer($0)) }
        try check(
            sb_curl_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(length)),
            "CURLOPT_POSTFIELDSIZE_LARGE")
        try check(sb_curl_setopt_ptr(handle, CURLOPT_POSTFIELDS, bodyBuffer.baseAddress), "CURLOPT_POSTFIELDS")
    }

    /// What came of the request, once libcurl says it is done with `code`.
    func response(for code: CURLcode) -> WebhookHTTPResponse {
        var status = 0
        _ = sb_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        _ = sb_curl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        // A write error is ours when the body passed the limit: the status line
        // had come, and it decides.
        let error = code == CURLE_OK || (code == CURLE_WRITE_ERROR && bodyCut) ? nil : error(for: code)
        return WebhookHTTPResponse(
            statusCode: status > 0 ? status : nil, error: error, responseHead: ResponseHead.text(from: head),
            bodyBytesRead: bodyBytesRead, bodyCut: bodyCut,
            durationMilliseconds: Int((MonotonicClock.nanoseconds() - startedAt) / 1_000_000), newConnections: connects)
    }

    /// A body chunk: its first bytes kept for the log, the rest counted, and
    /// the transfer stopped (by answering less than was given) past the limit.
    fileprivate func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        let keep = DeliveryOutcome.responseHeadBytes - head.count
        if keep > 0 { head += bytes.prefix(keep) }
        guard bodyBytesRead + bytes.count <= WebhookHTTPClient.maximumResponseBytes else {
            bodyCut = true
            return 0
        }
        bodyBytesRead += bytes.count
        return bytes.count
    }

    /// The socket for a connection libcurl is about to make, unless its
    /// address is one we may not reach. Checked for every new connection, so
    /// a name that resolved to a public address when the endpoint was saved
    /// and to a private one now is refused now.
    fileprivate func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let raw = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \curl_sockaddr.addr)!
        let family = address.pointee.family
        guard let target = TargetAddress(socketAddress: raw, family: family) else { return CURL_SOCKET_BAD }
        guard target.isAllowed(allowPrivate: allowPrivateTargets) else {
            refusedAddress = target
            return CURL_SOCKET_BAD
        }
        return socket(family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.protocol)
    }

    private func error(for code: CURLcode) -> WebhookHTTPError {
        let detail = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timeout(detail)
        case CURLE_COULDNT_RESOLVE_HOST: return .resolve(detail)
        case CURLE_COULDNT_CONNECT: return refusedAddress.map { .refusedTarget($0) } ?? .connect(detail)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
            CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT:
            return .tls(detail)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL: return .invalidURL(detail)
        default: return .transfer(detail)
        }
    }

    private func check(_ code: CURLcode, _ option: String) throws(WebhookHTTPError) {
        guard code == CURLE_OK else {
            throw .setup("libcurl refused \(option): \(String(cString: curl_easy_strerror(code)))")
        }
    }
}
