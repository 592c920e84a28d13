import SwitchboardChat
import SwitchboardHTTP
import SwitchboardReaders

/// What an API route produces: an answer at once (validation, auth), or a
/// job for the reader pool whose answer the loop sends when it comes back.
enum APIResult: Sendable {
    case now(HTTPResponse)
    case later(@Sendable (ChatQueries) -> HTTPResponse)
}

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
}

extension ChatErrorCode {
    /// PROTOCOL.md "HTTP API": errors carry the matching HTTP status.
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
