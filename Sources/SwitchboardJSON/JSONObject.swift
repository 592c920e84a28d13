/// A JSON object with its members in order. Keys are unique: the parser refuses an
/// object that repeats a key, and the subscript setter replaces an existing member.
public struct JSONObject: Equatable, Sendable {
    public private(set) var keys: [String]
    public private(set) var values: [JSONValue]

    public init() {
        keys = []
        values = []
    }

    /// Keys must be unique (checked by the parser before it calls this).
    init(uniqueKeys keys: [String], values: [JSONValue]) {
        self.keys = keys
        self.values = values
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }

    /// The members in order.
    public var members: Zip2Sequence<[String], [JSONValue]> { zip(keys, values) }

    /// The member's value; setting `nil` removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let index = keys.firstIndex(of: key) else { return nil }
            return values[index]
        }
        set {
            if let index = keys.firstIndex(of: key) {
                if let newValue {
                    values[index] = newValue
                } else {
                    keys.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
            }
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init()
        for (key, value) in elements {
            precondition(self[key] == nil, "duplicate key in JSON object literal")
            self[key] = value
        }
    }
}
