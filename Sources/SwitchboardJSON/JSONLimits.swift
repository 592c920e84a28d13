/// Bounds on what the parser accepts, so that one hostile frame or request body
/// cannot make the gateway allocate or recurse without limit.
public struct JSONLimits: Sendable, Equatable {
    /// Nesting of arrays and objects; `[[1]]` has depth 2. The parser recurses once per
    /// level, so the limit is capped at 512.
    public var maxDepth: Int
    /// UTF-8 bytes of one decoded string (keys included).
    public var maxStringBytes: Int
    /// Members of one object, or elements of one array.
    public var maxMembers: Int
    /// Bytes of the whole input.
    public var maxTotalBytes: Int

    public init(
        maxDepth: Int = 32, maxStringBytes: Int = 65536, maxMembers: Int = 4096, maxTotalBytes: Int = 1 << 20
    ) {
        precondition(maxDepth >= 1 && maxDepth <= 512, "maxDepth must be in 1...512")
        precondition(maxStringBytes >= 0 && maxMembers >= 0 && maxTotalBytes >= 0, "limits must not be negative")
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        self.maxMembers = maxMembers
        self.maxTotalBytes = maxTotalBytes
    }
}
