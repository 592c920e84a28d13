/// The `Range` request header (RFC 9110 14.1-14.2), for one attachment of known
/// size. Only a single range is served: a header asking for several, or one that
/// is malformed or uses another unit, is ignored and the whole file is sent, as
/// RFC 9110 14.2 allows ("a server MAY ignore the Range header field").
public enum ByteRange {
    /// What `header` (the field's value, or nil without one) asks of a
    /// representation of `size` bytes.
    ///
    /// - `bytes=a-b`: bytes a through b, b clipped to the last byte; a > b is
    ///   invalid (RFC 9110 14.1.1) and ignored; a at or past the end is unsatisfiable.
    /// - `bytes=a-`: from a to the end.
    /// - `bytes=-n`: the last n bytes (the whole file when it is shorter);
    ///   `-0` is unsatisfiable (14.1.1: a suffix range needs a non-zero length).
    /// - Numbers too large for `Int64` count as "past the end", not as malformed.
    /// - An empty representation has no byte to send: a suffix range selects the
    ///   whole (empty) file, any other range is unsatisfiable.
    public static func parse(_ header: String?, size: Int64) -> ByteRangeRequest {
        precondition(size >= 0, "a representation's size is never negative")
        guard let header else { return .whole }
        let value = Array(header.utf8)[...].trimmingOWS()
        guard let equals = value.firstIndex(of: UInt8(ascii: "=")),
            String(decoding: value[..<equals], as: UTF8.self).lowercased() == "bytes"
        else { return .whole }
        // RFC 9110 5.6.1.2: empty list elements (and the OWS around commas) are ignored.
        let specs = value[(equals + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            .map { $0.trimmingOWS() }.filter { !$0.isEmpty }
        guard specs.count == 1, let dash = specs[0].firstIndex(of: UInt8(ascii: "-")) else { return .whole }
        let spec = specs[0]
        let firstDigits = spec[..<dash]
        let lastDigits = spec[(dash + 1)...]
        if firstDigits.isEmpty {
            // suffix-range = "-" suffix-length
            guard let length = lastDigits.decimalValue() else { return .whole }
            if length == 0 { return .unsatisfiable }
            if size == 0 { return .whole }
            return .partial(first: length >= size ? 0 : size - length, last: size - 1)
        }
        // int-range = first-pos "-" [ last-pos ]
        guard let first = firstDigits.decimalValue() else { return .whole }
        var last = Int64.max
        if !lastDigits.isEmpty {
            guard let value = lastDigits.decimalValue() else { return .whole }
            if ArraySlice.decimalLess(lastDigits, firstDigits) { return .whole }
            last = value
        }
        if first >= size { return .unsatisfiable }
        return .partial(first: first, last: min(last, size - 1))
    }
}

extension ArraySlice where Element == UInt8 {
    /// Without optional whitespace (RFC 9110 OWS: space and tab) at either end.
    fileprivate func trimmingOWS() -> ArraySlice<UInt8> {
        var slice = self
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }

    /// The value of one or more ASCII digits, saturated at `Int64.max`; nil when
    /// empty or anything but a digit is present.
    fileprivate func decimalValue() -> Int64? {
        guard !isEmpty else { return nil }
        var value: Int64 = 0
        for byte in self {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            value = overflow1 || overflow2 ? .max : sum
        }
        return value
    }

    /// Whether the digit string `a` is a smaller number than `b`, exactly, however
    /// long they are (saturated values cannot tell two huge numbers apart).
    fileprivate static func decimalLess(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
        let a = a.drop { $0 == UInt8(ascii: "0") }
        let b = b.drop { $0 == UInt8(ascii: "0") }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}
