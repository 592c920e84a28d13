/// A statement's parameters in PostgreSQL's binary wire format, built in one
/// byte buffer that is kept between statements: one-dimensional `text[]` and
/// `uuid[]` arrays, and NULL.
///
/// Why binary: the server reads a text array literal twice (once to count
/// and check its elements, once to cut them out, unescaping) and then runs
/// each element's input function; a `uuid` is parsed from 36 hex characters.
/// The binary form carries each element's length ahead of its bytes and a
/// `uuid` as its 16 bytes, so `array_recv` only copies (a `text` element is
/// still checked as UTF-8). The statement's casts (`$1::uuid[]`) give each
/// parameter its type, and the element type written here must match it.
public struct PostgresBinaryParameters {
    /// The element types this builder writes, by their type OIDs.
    public enum ElementType: UInt32 {
        case text = 25
        case uuid = 2950
    }

    private(set) var bytes: [UInt8] = []
    /// Each parameter's place in `bytes`, or nil for NULL.
    private(set) var spans: [Range<Int>?] = []
    private var arrayStart = 0
    private var flagsOffset = 0
    private var elementCount = 0
    private var declaredCount = 0
    private var elementType = ElementType.text

    public init() {}

    /// Drops every parameter, keeping the buffer's capacity.
    public mutating func removeAll(reservingCapacity capacity: Int = 0) {
        bytes.removeAll(keepingCapacity: true)
        if capacity > bytes.capacity { bytes.reserveCapacity(capacity) }
        spans.removeAll(keepingCapacity: true)
    }

    public var count: Int { spans.count }

    /// Parameter `index` as it will be sent, or nil for NULL.
    public func value(at index: Int) -> ArraySlice<UInt8>? {
        spans[index].map { bytes[$0] }
    }

    /// A NULL parameter.
    public mutating func appendNull() {
        spans.append(nil)
    }

    /// Starts an array parameter of `count` elements, which the appends that
    /// follow must supply before `endArray`.
    public mutating func startArray(of type: ElementType, count: Int) {
        arrayStart = bytes.count
        elementType = type
        declaredCount = count
        elementCount = 0
        appendInt32(count == 0 ? 0 : 1)  // dimensions: an empty array has none
        flagsOffset = bytes.count
        appendInt32(0)  // has NULLs: set by the first NULL element
        appendInt32(Int32(bitPattern: type.rawValue))
        if count > 0 {
            appendInt32(Int32(count))
            appendInt32(1)  // lower bound
        }
    }

    /// A `text` element: the string's UTF-8 bytes.
    public mutating func appendElement(_ text: String) {
        precondition(elementType == .text, "a text element in a \(elementType) array")
        var text = text
        text.withUTF8 { utf8 in
            appendInt32(Int32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        elementCount += 1
    }

    /// A `uuid` element: its 128 bits as two halves, most significant first.
    public mutating func appendUUIDElement(high: UInt64, low: UInt64) {
        precondition(elementType == .uuid, "a uuid element in a \(elementType) array")
        appendInt32(16)
        appendInt64(high)
        appendInt64(low)
        elementCount += 1
    }

    /// A NULL element.
    public mutating func appendNullElement() {
        appendInt32(-1)
        bytes[flagsOffset + 3] = 1
        elementCount += 1
    }

    /// Ends the array started last; it becomes the next parameter.
    public mutating func endArray() {
        precondition(elementCount == declaredCount, "\(elementCount) elements in an array of \(declaredCount)")
        spans.append(arrayStart..<bytes.count)
    }

    /// Runs `body` with each parameter's address, length and format (1,
    /// binary; NULL has no address), as libpq's send calls take them.
    func withParameterPointers<R>(
        _ body: ([UnsafePointer<CChar>?], [Int32], [Int32]) -> R
    ) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            var values = [UnsafePointer<CChar>?](repeating: nil, count: spans.count)
            var lengths = [Int32](repeating: 0, count: spans.count)
            let formats = [Int32](repeating: 1, count: spans.count)
            // libpq reads a binary value's length; an empty one still needs a non-NULL pointer.
            let base = UnsafeRawPointer(buffer.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)!
            for (index, span) in spans.enumerated() {
                guard let span else { continue }
                values[index] = (base + span.lowerBound).assumingMemoryBound(to: CChar.self)
                lengths[index] = Int32(span.count)
            }
            return body(values, lengths, formats)
        }
    }

    private mutating func appendInt64(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    private mutating func appendInt32(_ value: Int32) {
        let bits = UInt32(bitPattern: value)
        bytes.append(UInt8(truncatingIfNeeded: bits >> 24))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 16))
        bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        bytes.append(UInt8(truncatingIfNeeded: bits))
    }
}
