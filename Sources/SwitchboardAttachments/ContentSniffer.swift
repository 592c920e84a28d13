/// Tells an upload's type from its own bytes as they stream in, whatever the
/// uploader claims: PNG, JPEG, GIF, WebP and PDF by their magic numbers, plain
/// text as well-formed UTF-8 without a NUL byte. Anything else is refused, and
/// so is text that starts like markup (`<` after an optional byte order mark and
/// whitespace: HTML, SVG or XML renamed `.png` or `.txt`), which a browser that
/// ignored the served type could run.
///
/// A magic type is known within the first 12 bytes (`feed` answers `.accepted`);
/// text only at the end (`finish`). The verdict is the same wherever the bytes
/// were cut into pieces. Nothing is allocated per feed.
public struct ContentSniffer: Sendable {
    private let allowedMask: UInt8
    /// Bytes fed so far.
    private var consumed: Int64 = 0
    /// Bit `i` set while the bytes so far are a prefix of `Self.magics[i]`.
    private var candidates: UInt8 = (1 << UInt8(Self.magics.count)) - 1
    private var text = TextScan()
    private var verdict: SniffProgress = .undecided

    public init(allowed: Set<AttachmentType>) {
        allowedMask = allowed.reduce(0) { $0 | $1.bit }
    }

    private var textAllowed: Bool { allowedMask & AttachmentType.text.bit != 0 }

    /// Takes the next bytes of the file. Once the answer is `.accepted` or
    /// `.refused` it is final: later feeds return it without reading.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> SniffProgress {
        guard verdict == .undecided else { return verdict }
        var index = 0
        // The magic numbers are all within the first 12 bytes; text is scanned
        // alongside them, since a short file may be text that begins like one.
        while index < bytes.count && candidates != 0 {
            let byte = bytes[index]
            if let type = matchMagic(byte, at: Int(consumed)) {
                verdict = allowedMask & type.bit != 0 ? .accepted(type) : refusal(.type(type))
                return verdict
            }
            if textAllowed { text.step(byte, at: consumed) }
            consumed += 1
            index += 1
        }
        guard candidates == 0 else { return .undecided }
        guard textAllowed else {
            verdict = refusal(.unrecognized)
            return verdict
        }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[index...])
        text.scan(rest, from: consumed)
        consumed += Int64(rest.count)
        if let failure = text.failure {
            verdict = refusal(failure)
        }
        return verdict
    }

    /// The verdict at the end of the file.
    public mutating func finish() -> Result<AttachmentType, SniffRefusal> {
        if verdict == .undecided {
            if consumed == 0 {
                verdict = .refused(.empty)
            } else if !textAllowed {
                // A file shorter than the magic number it began with.
                verdict = refusal(.unrecognized)
            } else if let failure = text.failure {
                verdict = refusal(failure)
            } else if !text.utf8.isAtBoundary {
                verdict = refusal(.invalidUTF8(offset: consumed))
            } else {
                verdict = .accepted(.text)
            }
        }
        switch verdict {
        case .accepted(let type): return .success(type)
        case .refused(let refusal): return .failure(refusal)
        case .undecided: preconditionFailure("finish() always decides")
        }
    }

    /// Whether a declared `Content-Type` agrees with the type sniffed: nil, empty
    /// and `application/octet-stream` (what a client sends when it does not know)
    /// agree with anything; any other must name the sniffed type (parameters and
    /// case aside: `text/plain; charset=utf-8` names `.text`).
    public static func check(declared: String?, sniffed: AttachmentType) -> Bool {
        guard let declared else { return true }
        let essence = Substring(declared.split(separator: ";", omittingEmptySubsequences: false).first ?? "")
            .trimmingWhitespace().lowercased()
        if essence.isEmpty || essence == "application/octet-stream" { return true }
        return AttachmentType(mediaType: declared) == sniffed
    }

    private func refusal(_ finding: SniffRefusal.Finding) -> SniffProgress {
        .refused(.notAllowed(allowed: AttachmentType.allCases.filter { allowedMask & $0.bit != 0 }, found: finding))
    }

    // MARK: Magic numbers

    /// A pattern byte that matches any byte (WebP's RIFF chunk size).
    private static let anyByte: Int16 = -1

    private static let magics: [(pattern: [Int16], type: AttachmentType)] = [
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png),
        ([0xFF, 0xD8, 0xFF], .jpeg),
        (Self.ascii("GIF87a"), .gif),
        (Self.ascii("GIF89a"), .gif),
        (Self.ascii("RIFF") + [anyByte, anyByte, anyByte, anyByte] + Self.ascii("WEBP"), .webp),
        (Self.ascii("%PDF-"), .pdf),
    ]

    private static func ascii(_ text: String) -> [Int16] { text.utf8.map { Int16($0) } }

    /// Narrows the candidates by the byte at `offset`; the type whose whole magic
    /// number the bytes now match, if any.
    private mutating func matchMagic(_ byte: UInt8, at offset: Int) -> AttachmentType? {
        for (i, magic) in Self.magics.enumerated() where candidates & (1 << UInt8(i)) != 0 {
            let expected = magic.pattern[offset]
            guard expected == Self.anyByte || expected == Int16(byte) else {
                candidates &= ~(1 << UInt8(i))
                continue
            }
            if offset == magic.pattern.count - 1 { return magic.type }
        }
        return nil
    }
}
