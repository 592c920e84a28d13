/// A JSON number, kept as its source text so that nothing is lost in transit
/// (RFC 8259 section 6 leaves range and precision to implementations).
///
/// Two numbers are equal when their text is: `1.0` and `1` differ. Compare `int64`
/// or `double` for numeric equality.
public struct JSONNumber: Equatable, Sendable, CustomStringConvertible {
    /// The number's text, valid RFC 8259 number grammar.
    public let raw: String
    /// The value when `raw` is an integer literal (no fraction, no exponent) within
    /// `Int64`; `nil` otherwise (`1.0`, `1e2` and `9223372036854775808` are `nil`).
    public let int64: Int64?

    init(validatedRaw raw: String, int64: Int64?) {
        self.raw = raw
        self.int64 = int64
    }

    public init(_ value: Int64) {
        self.raw = String(value)
        self.int64 = value
    }

    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// A number from a finite `Double`, written in its shortest round-tripping form.
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON has no NaN or infinity")
        self.raw = value.description
        self.int64 = nil
    }

    /// Validates `text` against the RFC 8259 number grammar; `nil` if it does not match.
    public init?(_ text: String) {
        guard case .number(let number)? = try? JSONParser.parse(text), number.raw == text else { return nil }
        self = number
    }

    /// The nearest `Double`, or `nil` when the number is out of `Double`'s range.
    public var double: Double? {
        guard let value = Double(raw), value.isFinite else { return nil }
        return value
    }

    public var description: String { raw }
}
