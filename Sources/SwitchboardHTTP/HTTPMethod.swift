/// A request method. Methods are case-sensitive (RFC 9110 9.1): "get" is not GET.
public enum HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    case get, head, post, put, patch, delete, options
    case other(String)

    /// Maps the standard names to their cases, so `.other` never holds one of them
    /// when built through this initializer.
    public init(_ name: String) {
        switch name {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "PATCH": self = .patch
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        default: self = .other(name)
        }
    }

    /// Avoids building a String for the common methods.
    init(bytes: UnsafeBufferPointer<UInt8>) {
        switch bytes.count {
        case 3 where bytes.elementsEqual("GET".utf8): self = .get
        case 3 where bytes.elementsEqual("PUT".utf8): self = .put
        case 4 where bytes.elementsEqual("POST".utf8): self = .post
        case 4 where bytes.elementsEqual("HEAD".utf8): self = .head
        case 5 where bytes.elementsEqual("PATCH".utf8): self = .patch
        case 6 where bytes.elementsEqual("DELETE".utf8): self = .delete
        case 7 where bytes.elementsEqual("OPTIONS".utf8): self = .options
        default: self = .other(String(decoding: bytes, as: UTF8.self))
        }
    }

    public var name: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .patch: "PATCH"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .other(let name): name
        }
    }

    public var description: String { name }

    // Compare by name so that `.other("GET")` built by hand still equals `.get`.
    public static func == (lhs: HTTPMethod, rhs: HTTPMethod) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}
