/// Why a document was refused, and where: `offset` is the byte of the input at which
/// the problem was found.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// For example `expected ':' after object key at byte 17`.
    public var description: String { "\(message) at byte \(offset)" }
}
