/// What a `Range` header asks of a representation of known size.
public enum ByteRangeRequest: Equatable, Sendable {
    /// The whole representation (200): no `Range`, or one the server ignores.
    case whole
    /// Bytes `first...last`, both within the representation (206).
    case partial(first: Int64, last: Int64)
    /// A well-formed range that selects no byte of it (416).
    case unsatisfiable
}
