import CCurl

/// `curl_global_init`, once per process before the first handle: Swift runs
/// a static's initializer once, whichever thread gets there first.
enum CurlGlobal {
    private static let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    static func initialize() throws(WebhookHTTPError) {
        guard code == CURLE_OK else {
            throw .setup("curl_global_init failed: \(String(cString: curl_easy_strerror(code)))")
        }
    }
}
