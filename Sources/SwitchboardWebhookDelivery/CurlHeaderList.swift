import CCurl
import SwitchboardWebhooks

/// A request's header lines as libcurl reads them (`CURLOPT_HTTPHEADER`), in
/// memory that one transfer keeps and fills again for each request: the
/// lines' bytes one after another, each ended by a NUL, and a list node per
/// line pointing into them. Built with `curl_slist_append`, each request paid
/// a string for each of its six lines and, in libcurl, a node and a copy of
/// it (about eighteen allocations and as many frees a request, at thousands
/// of requests a second).
///
/// libcurl only reads the list, during the transfer it was set for: the
/// memory is the owner's, so no `curl_slist_free_all`. It must not change
/// while a transfer that uses it is under way.
final class CurlHeaderList {
    private var bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
    private var nodes = UnsafeMutableBufferPointer<curl_slist>.allocate(capacity: 8)

    deinit {
        bytes.deallocate()
        nodes.deallocate()
    }

    /// The list for `headers` (each as `name: value`) followed by `extra`
    /// lines written as they are; nil when there are none.
    func fill(_ headers: [WebhookHeader], extra: [StaticString]) -> UnsafeMutablePointer<curl_slist>? {
        let lines = headers.count + extra.count
        guard lines > 0 else { return nil }
        var needed = 0
        for header in headers { needed += header.name.utf8.count + 2 + header.value.utf8.count + 1 }
        for line in extra { needed += line.utf8CodeUnitCount + 1 }
        if needed > bytes.count {
            bytes.deallocate()
            bytes = .allocate(byteCount: max(needed, bytes.count * 2), alignment: 1)
        }
        if lines > nodes.count {
            nodes.deallocate()
            nodes = .allocate(capacity: max(lines, nodes.count * 2))
        }
        var offset = 0
        var line = 0
        func startLine() {
            let start = bytes.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self)
            nodes[line] = curl_slist(data: start, next: line + 1 < lines ? nodes.baseAddress! + line + 1 : nil)
            line += 1
        }
        func write(_ part: UnsafeBufferPointer<UInt8>) {
            guard let base = part.baseAddress, !part.isEmpty else { return }
            (bytes.baseAddress! + offset).copyMemory(from: base, byteCount: part.count)
            offset += part.count
        }
        func write(_ text: String) {
            var text = text
            text.withUTF8 { write($0) }
        }
        func endLine() {
            bytes[offset] = 0
            offset += 1
        }
        for header in headers {
            startLine()
            write(header.name)
            bytes[offset] = UInt8(ascii: ":")
            bytes[offset + 1] = UInt8(ascii: " ")
            offset += 2
            write(header.value)
            endLine()
        }
        for text in extra {
            startLine()
            text.withUTF8Buffer { write($0) }
            endLine()
        }
        return nodes.baseAddress
    }
}
