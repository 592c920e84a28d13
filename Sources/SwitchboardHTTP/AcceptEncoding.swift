/// What a client's `Accept-Encoding` (RFC 9110 12.5.3) allows, for a server
/// that has two representations of a file: as it is, and gzip.
public enum AcceptEncoding {
    /// Whether gzip may be sent, given every `Accept-Encoding` field of the request: `gzip` (or its
    /// alias `x-gzip`, RFC 9110 8.4.1.3) listed with a weight above 0, or, when it is not listed, `*`
    /// with one. No field, or an empty one, allows only the file as it is: a client that says
    /// nothing may not decode anything (RFC 9110 12.5.3 lets a server assume either).
    public static func allowsGzip(_ fields: [String]) -> Bool {
        var gzip: Bool?
        var any: Bool?
        for field in fields {
            for element in field.split(separator: ",") {
                var parts = element.split(separator: ";").makeIterator()
                guard let coding = parts.next().map(HTTPSyntax.trimmingWhitespace), !coding.isEmpty else { continue }
                var allowed = true
                while let parameter = parts.next() {
                    let pair = HTTPSyntax.trimmingWhitespace(parameter).split(separator: "=", maxSplits: 1)
                    guard pair.count == 2, HTTPSyntax.equalsIgnoringCase(pair[0], "q") else { continue }
                    // A weight that is not a number in 0...1 makes the element meaningless: refused.
                    guard let weight = Double(pair[1]), (0...1).contains(weight) else {
                        allowed = false
                        break
                    }
                    allowed = weight > 0
                }
                if HTTPSyntax.equalsIgnoringCase(coding, "gzip") || HTTPSyntax.equalsIgnoringCase(coding, "x-gzip") {
                    gzip = (gzip ?? false) || allowed
                } else if coding == "*" {
                    any = (any ?? false) || allowed
                }
            }
        }
        return gzip ?? any ?? false
    }
}
