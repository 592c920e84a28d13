/// Header fields in the order received, names as written. Lookups are
/// case-insensitive because field names are (RFC 9110 5.1).
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)]

    public init() {
        fields = []
    }

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    public mutating func reserveCapacity(_ capacity: Int) {
        fields.reserveCapacity(capacity)
    }

    /// Removes every field with this name.
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPSyntax.equalsIgnoringCase($0.name, name) }
    }

    /// The value of the first field with this name.
    public func first(_ name: String) -> String? {
        fields.first { HTTPSyntax.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of the fields with this name, in order (not split on commas).
    public func values(_ name: String) -> [String] {
        fields.filter { HTTPSyntax.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// Whether a comma-separated token list (RFC 9110 5.6.1), across every field of
    /// this name, holds `token`, compared case-insensitively. For example
    /// `contains("Connection", token: "upgrade")` on "Connection: keep-alive, Upgrade".
    public func contains(_ name: String, token: String) -> Bool {
        fields.contains {
            HTTPSyntax.equalsIgnoringCase($0.name, name) && Self.tokenList($0.value, contains: token)
        }
    }

    /// Whether one comma-separated field value holds `token`, ignoring case and
    /// the optional whitespace around list elements.
    public static func tokenList(_ value: String, contains token: String) -> Bool {
        value.split(separator: ",", omittingEmptySubsequences: true).contains {
            HTTPSyntax.equalsIgnoringCase(HTTPSyntax.trimmingWhitespace($0), token)
        }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
