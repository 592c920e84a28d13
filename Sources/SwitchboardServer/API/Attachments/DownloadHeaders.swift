import SwitchboardAttachments
import SwitchboardHTTP

/// The answer to a download's head (docs/attachments.md, "Serving"): images
/// with their real type, everything else as a download with its name; the
/// cache validator, single byte ranges, and headers that keep a browser from
/// running or sniffing anything served here.
enum DownloadHeaders {
    /// What to send for a representation of `size` bytes.
    enum Decision {
        /// The whole representation (200) or one range of it (206): this head,
        /// then `length` bytes from `offset`.
        case bytes(HTTPResponse, offset: Int64, length: Int64)
        /// A complete answer without the bytes: 304, or 416.
        case answer(HTTPResponse)
    }

    /// The head for `request`. `contentType` is the representation's type,
    /// `filename` the upload's name (for non-images), `expires` the URL's end.
    static func decide(
        _ request: HTTPRequest, contentType: String, size: Int64, sha256: String, filename: String,
        expires: Int64, now: Int64
    ) -> Decision {
        var response = HTTPResponse(status: .ok)
        let etag = "\"\(sha256)\""
        response.headers = [
            ("ETag", etag), ("Cache-Control", "private, max-age=\(max(0, expires - now))"), ("Accept-Ranges", "bytes"),
        ]
        if ifNoneMatch(request.headers.first("If-None-Match"), matches: etag) {
            response.status = .notModified
            return .answer(secured(response))
        }
        let type = AttachmentType(mediaType: contentType)
        response.headers.append(("Content-Type", type == .text ? "text/plain; charset=utf-8" : contentType))
        if !(type?.isImage ?? false) {
            response.headers.append(("Content-Disposition", contentDisposition(filename)))
        }
        // RFC 9110 13.1.5: a Range under an If-Range that no longer matches gets the whole.
        let rangeHeader =
            ifRange(request.headers.first("If-Range"), matches: etag) ? request.headers.first("Range") : nil
        switch ByteRange.parse(rangeHeader, size: size) {
        case .whole:
            return .bytes(secured(response), offset: 0, length: size)
        case .partial(let first, let last):
            response.status = .partialContent
            response.headers.append(("Content-Range", "bytes \(first)-\(last)/\(size)"))
            return .bytes(secured(response), offset: first, length: last - first + 1)
        case .unsatisfiable:
            var refusal = HTTPResponse.error(
                .rangeNotSatisfiable, code: "bad_request", message: "the range is outside the file's \(size) bytes")
            refusal.headers += [("Content-Range", "bytes */\(size)"), ("ETag", etag), ("Accept-Ranges", "bytes")]
            return .answer(secured(refusal))
        }
    }

    /// Every answer of a download route: nothing served here is sniffed by a
    /// browser or allowed to run anything, even opened directly. Inline style
    /// is the browser's own image viewer's (a picture opened full size in a
    /// tab): an image document holds no other, and without it the browser
    /// reports each of its rules as a violation.
    static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers += [("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", contentSecurityPolicy)]
        return response
    }

    /// RFC 6266 4.3 with RFC 8187's `filename*`: the name in UTF-8, every byte
    /// but the attr-chars percent-encoded, so no name can break the header.
    static func contentDisposition(_ filename: String) -> String {
        var encoded = ""
        for byte in filename.utf8 {
            if isAttrChar(byte) {
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                encoded +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true)
                    + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return "attachment; filename*=UTF-8''" + encoded
    }

    /// RFC 8187 3.2.1: attr-char = ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~".
    private static func isAttrChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$&+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110 13.1.2: `*`, or a list with our tag under the weak comparison.
    static func ifNoneMatch(_ header: String?, matches etag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { element in
            var tag = element.trimmingCharacters(in: " \t")
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag = String(tag.dropFirst(2)) }
            return tag == etag
        }
    }

    /// RFC 9110 13.1.5: no If-Range, or our tag exactly (a date is never a strong validator here).
    static func ifRange(_ header: String?, matches etag: String) -> Bool {
        guard let header else { return true }
        return header.trimmingCharacters(in: " \t") == etag
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var text = self
        while let first = text.first, set.contains(first) { text.removeFirst() }
        while let last = text.last, set.contains(last) { text.removeLast() }
        return String(text)
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String { self[...].trimmingCharacters(in: set) }
}
