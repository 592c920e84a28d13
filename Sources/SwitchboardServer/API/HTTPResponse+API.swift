import SwitchboardChat
import SwitchboardHTTP

extension HTTPResponse {
    /// The protocol's error object with the status matching its code.
    static func api(_ error: ChatError) -> HTTPResponse {
        var encoder = ServerFrameEncoder()
        return HTTPResponse(
            status: error.code.httpStatus, headers: [("Content-Type", "application/json")],
            body: encoder.apiError(error))
    }

    static func apiJSON(_ status: HTTPStatus, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: body)
    }

    /// 503 for routes that need the database when none is configured.
    static let noDatabase = HTTPResponse.api(ChatError(.unavailable, "no database is configured"))
}

extension ChatErrorCode {
    /// docs/protocol.md "HTTP API": errors carry the matching HTTP status.
    var httpStatus: HTTPStatus {
        switch self {
        case .badRequest: .badRequest
        case .unauthorized: .unauthorized
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .tooLarge: .payloadTooLarge
        case .rateLimited: .tooManyRequests
        case .overloaded, .unavailable: .serviceUnavailable
        }
    }
}

extension ChatError {
    static func badRequest(_ message: String) -> ChatError { ChatError(.badRequest, message) }
}
