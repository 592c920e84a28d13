/// Number-to-text conversions shared by the report writers.
///
/// Written by hand because library code avoids Foundation, and because
/// `String(describing: Double)` switches to exponent form (`1e-05`) and
/// prints binary noise (`0.30000000000000004`), neither of which belongs
/// in a report or in JSON.
enum ReportNumberFormat {
    /// What a non-finite value shows as in human output; JSON emits `null` instead.
    static let unavailable = "n/a"

    /// `51234` as `51,234`.
    static func grouped<T: BinaryInteger>(_ value: T) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + groupThousands(digits)
    }

    /// `value` rounded to exactly `decimals` places, never in exponent form.
    static func fixed(_ value: Double, decimals: Int, grouping: Bool = false) -> String {
        guard value.isFinite else { return unavailable }
        let decimals = min(max(decimals, 0), 9)
        var scale: UInt64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value.magnitude * Double(scale)).rounded(.toNearestOrAwayFromZero)

        var whole: String
        var fraction = ""
        // Beyond UInt64 the fraction is below a double's precision anyway.
        if scaled < 9.0e18 {
            let units = UInt64(scaled)
            whole = String(units / scale)
            if decimals > 0 {
                let rest = String(units % scale)
                fraction = String(repeating: "0", count: decimals - rest.count) + rest
            }
        } else {
            whole = wholeDigits(value.magnitude.rounded())
            fraction = String(repeating: "0", count: decimals)
        }
        if grouping { whole = groupThousands(whole) }
        // Rounding can leave nothing but zeros; "-0.000" would be noise.
        let isZero = scaled == 0
        let sign = value < 0 && !isZero ? "-" : ""
        return sign + whole + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// At most `maxDecimals` places with trailing zeros dropped: 12, 0.412, 99.9.
    static func trimmed(_ value: Double, maxDecimals: Int, grouping: Bool = false) -> String {
        stripTrailingZeros(fixed(value, decimals: maxDecimals, grouping: grouping), keeping: 0)
    }

    /// A headline figure: whole numbers grouped, others with one or two places.
    static func figure(_ value: Double) -> String {
        guard value.isFinite else { return unavailable }
        if value == value.rounded() { return fixed(value, decimals: 0, grouping: true) }
        let decimals = value.magnitude >= 10 ? 1 : 2
        return stripTrailingZeros(fixed(value, decimals: decimals, grouping: true), keeping: 1)
    }

    /// A latency in milliseconds to about three significant digits: 0.412, 4.12, 12.3, 1,234.
    static func milliseconds(_ value: Double) -> String {
        let magnitude = value.magnitude
        let decimals =
            magnitude < 1
            ? 3
            : magnitude < 10
                ? 2
                : magnitude < 100 ? 1 : 0
        return fixed(value, decimals: decimals, grouping: true)
    }

    /// A short axis label: 2,500, 0.25, 50k, 1.5M.
    static func compact(_ value: Double) -> String {
        let magnitude = value.magnitude
        if magnitude >= 10_000_000 { return trimmed(value / 1_000_000, maxDecimals: 2, grouping: true) + "M" }
        if magnitude >= 10_000 { return trimmed(value / 1_000, maxDecimals: 2) + "k" }
        return trimmed(value, maxDecimals: 3, grouping: true)
    }

    /// `1234567` as `1,234,567`; `digits` holds ASCII digits only.
    private static func groupThousands(_ digits: String) -> String {
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return result
    }

    /// The decimal digits of a non-negative whole double too large for UInt64.
    private static func wholeDigits(_ value: Double) -> String {
        var digits: [Character] = []
        var rest = value
        while rest >= 1 {
            let digit = rest.truncatingRemainder(dividingBy: 10)
            digits.append(Character(String(Int(digit))))
            rest = ((rest - digit) / 10).rounded()
        }
        return digits.isEmpty ? "0" : String(digits.reversed())
    }

    /// Drops zeros after the point, leaving at least `keeping` decimals (and no bare point).
    private static func stripTrailingZeros(_ text: String, keeping: Int) -> String {
        guard let point = text.firstIndex(of: ".") else { return text }
        var result = text
        while result.last == "0" && result.distance(from: point, to: result.endIndex) > keeping + 1 {
            result.removeLast()
        }
        if result.last == "." { result.removeLast() }
        return result
    }
}
