import Foundation

/// One HTTP/1.1 exchange per call over a fresh connection (to a live or an
/// in-process gateway), parsed with
/// Foundation's JSON (independent of the gateway's own codecs).
struct HTTPReply {
    let status: Int
    let head: String
    let body: [UInt8]

    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    var errorMessage: String { ((json["error"] as? [String: Any])?["message"] as? String) ?? "" }

    /// The first header `name` (case-insensitive), if sent.
    func header(_ name: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

enum HTTPTestClient {
    static func request(
        _ gateway: any TestGateway, _ method: String, _ path: String, token: String? = nil, body: String? = nil,
        contentType: String? = "application/json", headers: [(String, String)] = []
    ) throws -> HTTPReply {
        let client = try gateway.connect()
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let bytes = Array((body ?? "").utf8)
        if body != nil {
            if let contentType { head += "Content-Type: \(contentType)\r\n" }
            head += "Content-Length: \(bytes.count)\r\n"
        }
        client.send(Array((head + "\r\n").utf8) + bytes)
        let responseHead = client.readHead()
        guard let statusText = responseHead.split(separator: " ").dropFirst().first, let status = Int(statusText) else {
            throw TestFailure("no HTTP response: \(responseHead)")
        }
        var length = 0
        for line in responseHead.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
            length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return HTTPReply(status: status, head: responseHead, body: client.read(count: length))
    }
}
