import SwitchboardJSON

/// Checks of the JOSE header (RFC 7515 4), made before the signature is checked:
/// the header decides how to check it.
enum JOSEHeader {
    /// A header is a few short members; anything bigger is not one of ours.
    static let limits = JSONLimits(maxDepth: 8, maxStringBytes: 1024, maxMembers: 32, maxTotalBytes: 4096)

    static func validate(_ bytes: [UInt8]) throws(TokenError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw .malformed("header is not valid JSON")
        }
        // RFC 7515 4: the header is a JSON object.
        guard let header = value.objectValue else { throw .malformed("header is not a JSON object") }

        // RFC 7515 4.1.1: alg is required. Only HS256 is accepted, so that neither
        // "none" nor a public-key algorithm keyed with our secret (RFC 8725 2.1) can pass.
        guard let algValue = header["alg"] else { throw .malformed("header has no alg") }
        guard let alg = algValue.stringValue else { throw .malformed("header alg is not a string") }
        guard alg == "HS256" else { throw .unsupportedAlgorithm(excerptOf: alg) }

        // RFC 7515 4.1.9 / RFC 7519 5.1: typ is optional; media types compare case-insensitively.
        if let typValue = header["typ"] {
            guard let typ = typValue.stringValue else { throw .malformed("header typ is not a string") }
            guard isJWT(typ) else { throw .malformed("header typ is not JWT") }
        }

        // RFC 7515 4.1.11: extensions listed in crit must be understood; we understand none.
        if header["crit"] != nil { throw .malformed("header has crit extensions") }
    }

    /// ASCII case-insensitive comparison with "JWT" (no locale, no Foundation).
    private static func isJWT(_ typ: String) -> Bool {
        let expected = Array("jwt".utf8)
        let utf8 = Array(typ.utf8)
        guard utf8.count == expected.count else { return false }
        for (c, e) in zip(utf8, expected) {
            let lowered = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) ? c + 32 : c
            guard lowered == e else { return false }
        }
        return true
    }
}
