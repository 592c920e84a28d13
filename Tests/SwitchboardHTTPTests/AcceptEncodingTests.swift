import SwitchboardHTTP
import Testing

struct AcceptEncodingTests {
    @Test(arguments: [
        // What browsers send.
        (["gzip, deflate, br, zstd"], true), (["gzip, deflate"], true), (["GZIP"], true), (["x-gzip"], true),
        // Weights: zero refuses, anything above allows; a weight out of range or not a number refuses.
        (["gzip;q=0"], false), (["gzip; q=0.001"], true), (["gzip;q=1.0, identity"], true), (["gzip;Q=0"], false),
        (["gzip;q=2"], false), (["gzip;q=x"], false), (["gzip;level=9"], true),
        // `*` covers gzip only when gzip is not named.
        (["*"], true), (["*;q=0"], false), (["gzip;q=0, *"], false), (["*;q=0, gzip"], true), (["br, *;q=0.1"], true),
        // Nothing said, or only other codings: the file as it is.
        ([], false), ([""], false), (["identity"], false), (["br, zstd"], false), (["gzipped"], false),
        // Several fields are one list.
        (["br", "gzip"], true), (["gzip;q=0", "x-gzip"], true),
    ])
    func gzipIsAllowed(fields: [String], expected: Bool) {
        #expect(AcceptEncoding.allowsGzip(fields) == expected, "\(fields)")
    }
}
