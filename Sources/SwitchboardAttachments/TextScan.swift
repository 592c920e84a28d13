/// The plain-text half of `ContentSniffer`: well-formed UTF-8, no NUL byte, and
/// not starting like markup. Remembers the first reason the bytes cannot be text.
struct TextScan: Sendable {
    private(set) var utf8 = UTF8Scanner()
    private(set) var failure: SniffRefusal.Finding?
    /// Still in the leading byte order mark and whitespace, where `<` means markup.
    private var leading = true

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    @inline(__always)
    mutating func step(_ byte: UInt8, at offset: Int64) {
        guard failure == nil else { return }
        if leading { checkLeading(byte, at: offset) }
        if byte == 0 {
            failure = .nulByte(offset: offset)
        } else if !utf8.step(byte) {
            failure = .invalidUTF8(offset: offset)
        }
    }

    /// Steps through `bytes`, the first of which is at `offset` in the file.
    mutating func scan(_ bytes: UnsafeRawBufferPointer, from offset: Int64) {
        var index = 0
        while leading && index < bytes.count && failure == nil {
            step(bytes[index], at: offset + Int64(index))
            index += 1
        }
        while index < bytes.count && failure == nil {
            let byte = bytes[index]
            // Most text is ASCII between characters: nothing to track.
            if byte != 0 && byte < 0x80 && utf8.isAtBoundary {
                index += 1
                continue
            }
            step(byte, at: offset + Int64(index))
            index += 1
        }
    }

    /// The WHATWG MIME sniffing standard skips these before looking for a tag.
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D
    }

    private mutating func checkLeading(_ byte: UInt8, at offset: Int64) {
        if offset < 3 && byte == Self.byteOrderMark[Int(offset)] { return }
        if Self.isWhitespace(byte) { return }
        leading = false
        if byte == UInt8(ascii: "<") { failure = .markup }
    }
}
