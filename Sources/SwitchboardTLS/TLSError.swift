import COpenSSL

/// A TLS failure: what was being done, followed by the OpenSSL error queue entries that explain it.
public struct TLSError: Error, CustomStringConvertible, Sendable {
    /// Names what failed ("cannot load certificate chain /path: error:...").
    public let message: String

    public init(message: String) {
        self.message = message
    }

    public var description: String { message }

    /// Builds an error for `what` from the calling thread's OpenSSL error queue and empties the queue, so
    /// the entries cannot be blamed on the next operation (possibly another connection on this thread).
    package static func fromErrorQueue(_ what: String) -> TLSError {
        let entries = drainErrorQueue()
        return TLSError(message: entries.isEmpty ? what : "\(what): \(entries.joined(separator: "; "))")
    }

    /// Returns the text of every queued OpenSSL error, oldest first, and leaves the queue empty.
    static func drainErrorQueue() -> [String] {
        var entries: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            // 256 bytes is the size OpenSSL's own ERR_error_string uses; longer text is truncated.
            let text = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
                ERR_error_string_n(code, buffer.baseAddress, buffer.count)
                return String(cString: buffer.baseAddress!)
            }
            entries.append(text)
        }
        return entries
    }
}
