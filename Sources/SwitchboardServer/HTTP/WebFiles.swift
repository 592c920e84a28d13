import SwitchboardDeflate
import SwitchboardHTTP
import SwitchboardWeb

/// The browser clients' files, from the binary: revalidated on every use
/// (`no-cache` with a strong `ETag`, so an unchanged file costs a 304), gzip
/// to clients that accept it, and pages under a Content-Security-Policy that
/// allows only this origin's scripts, styles and connections (no inline script
/// anywhere).
enum WebFiles {
    /// `blob:` images: the previews of files being attached, made in the page from the chosen file.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// A file's gzip representation: its own bytes and its own strong validator.
    struct Gzipped: Sendable {
        let body: [UInt8]
        let etag: String
    }

    /// Every file that gzip makes smaller, compressed once, at the best level (the routes touch this
    /// when they are built, so no request waits for it). About 10 ms for all of them.
    static let gzipped: [String: Gzipped] = WebAssets.byPath.compactMapValues { asset in
        guard let body = try? Gzip.compress(asset.body), body.count < asset.body.count else { return nil }
        // Another representation, another entity tag: the identity tag marked as gzip's.
        return Gzipped(body: body, etag: String(asset.etag.dropLast()) + "-gzip\"")
    }

    static func answer(_ request: HTTPRequest, _ asset: WebAsset) -> HTTPResponse {
        let compressed = gzipped[asset.path]
        let gzip = compressed.flatMap {
            AcceptEncoding.allowsGzip(request.headers.values("Accept-Encoding")) ? $0 : nil
        }
        let etag = gzip?.etag ?? asset.etag
        var response: HTTPResponse
        if let tags = request.headers.first("If-None-Match"), matches(tags, etag) {
            response = HTTPResponse(status: .notModified)
        } else {
            response = HTTPResponse(
                status: .ok, headers: [("Content-Type", asset.contentType)], body: gzip?.body ?? asset.body)
            if gzip != nil { response.headers.append(("Content-Encoding", "gzip")) }
        }
        response.headers += [
            ("ETag", etag), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
        // Caches keep the two representations apart (a 304 too: it names the one it validates).
        if compressed != nil { response.headers.append(("Vary", "Accept-Encoding")) }
        if asset.isDocument {
            response.headers.append(("Content-Security-Policy", contentSecurityPolicy))
        } else {
            // Scripts are loaded from the pages that embed the widget, on any origin.
            response.headers.append(("Access-Control-Allow-Origin", "*"))
        }
        return response
    }

    /// "/console" for "/console/": the folder's page, where its relative links work.
    static func redirect(to path: String) -> HTTPResponse {
        HTTPResponse(status: .movedPermanently, headers: [("Location", path)])
    }

    /// RFC 9110 13.1.2: a list of entity tags, or "*" (an entity tag holds no whitespace).
    private static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.filter { $0 != " " && $0 != "\t" }
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
