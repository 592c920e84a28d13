/// A value from the configuration file or the environment.
public enum ConfigValue: Equatable, Sendable {
    case string(String)
    case integer(Int)
    case boolean(Bool)
    case strings([String])

    var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .boolean: "a boolean"
        case .strings: "a list of strings"
        }
    }
}

/// A configuration problem, always naming the key (and where it came from).
public struct ConfigError: Error, CustomStringConvertible, Equatable {
    public let key: String
    public let message: String
    public init(key: String, message: String) {
        self.key = key
        self.message = message
    }
    public var description: String { key.isEmpty ? message : "configuration key '\(key)': \(message)" }
}
