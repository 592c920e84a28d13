import SwitchboardWebhooks

/// A POST to send.
public struct WebhookHTTPRequest: Sendable, Equatable {
    public var url: String
    public var headers: [WebhookHeader]
    /// Sent as its UTF-8 bytes, exactly.
    public var body: String

    public init(url: String, headers: [WebhookHeader], body: String) {
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// How a request ended.
public struct WebhookHTTPResponse: Sendable, Equatable {
    /// The final status (after any 1xx), nil when no status line came.
    public var statusCode: Int?
    /// Why the transfer ended early, if it did. A status may come with an
    /// error (the body timed out or broke after the status line); the status
    /// still decides, see `result`.
    public var error: WebhookHTTPError?
    /// The body's first bytes as the delivery log keeps them (`ResponseHead`).
    public var responseHead: String
    /// Body bytes read, at most `WebhookHTTPClient.maximumResponseBytes`.
    public var bodyBytesRead: Int
    /// The body went past the reading limit and the rest was not read.
    public var bodyCut: Bool
    public var durationMilliseconds: Int
    /// Connections the request had to open: 0 when it reused a kept-alive one.
    public var newConnections: Int

    /// The status line decides when one came; otherwise the error.
    public var result: AttemptResult {
        if let status = statusCode, status >= 200 { return .answered(statusCode: status, responseHead: responseHead) }
        let error = error ?? .transfer("the answer had no status line")
        return .noAnswer(error.failure, message: error.description)
    }
}
