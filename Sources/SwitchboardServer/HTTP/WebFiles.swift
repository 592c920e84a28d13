import SwitchboardHTTP
import SwitchboardWeb

/// The browser clients' files, from the binary: revalidated on every use
/// (`no-cache` with a strong `ETag`, so an unchanged file costs a 304), and
/// pages under a Content-Security-Policy that allows only this origin's
/// scripts, styles and connections (no inline script anywhere).
enum WebFiles {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func answer(_ request: HTTPRequest, _ asset: WebAsset) -> HTTPResponse {
        var response: HTTPResponse
        if let tags = request.headers.first("If-None-Match"), matches(tags, asset.etag) {
            response = HTTPResponse(status: .notModified)
        } else {
            response = HTTPResponse(status: .ok, headers: [("Content-Type", asset.contentType)], body: asset.body)
        }
        response.headers += [
            ("ETag", asset.etag), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
        ]
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
