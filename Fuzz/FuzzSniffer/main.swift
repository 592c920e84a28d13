// libFuzzer target for what SwitchboardAttachments reads from strangers: an
// upload's bytes (ContentSniffer, SHA256.Hasher), a Range header (ByteRange) and
// a stored attachment list (AttachmentObject.decodeList). Built with
// -sanitize=fuzzer,address -parse-as-library, so this file holds declarations only.
//
// No input may crash them, and:
// - the sniffer's verdict is the same fed whole, cut in two at a position taken
//   from the first byte, and fed in small pieces; a final answer of `feed` is the
//   verdict; an accepted type is what the bytes are (checked against the standard
//   library's UTF-8 validation and the magic numbers), and a smaller allowed set
//   changes only whether that type passes;
// - the streamed SHA-256 equals the one-shot digest;
// - a partial range lies within the representation;
// - a decoded list survives writing and decoding again unchanged.
import SwitchboardAttachments
import SwitchboardCrypto

private let everything = Set(AttachmentType.allCases)

private func sniff(
    _ input: UnsafeRawBufferPointer, cuts: [Int], allowed: Set<AttachmentType> = everything
) -> Result<AttachmentType, SniffRefusal> {
    var sniffer = ContentSniffer(allowed: allowed)
    var final: SniffProgress? = nil
    var start = 0
    for cut in cuts + [input.count] {
        let progress = sniffer.feed(UnsafeRawBufferPointer(rebasing: input[start..<cut]))
        if let final {
            precondition(progress == final, "a final answer changed: \(final) then \(progress)")
        } else if progress != .undecided {
            final = progress
        }
        start = cut
    }
    let verdict = sniffer.finish()
    switch (final, verdict) {
    case (nil, _): break
    case (.accepted(let type)?, .success(let sniffed)):
        precondition(type == sniffed, "accepted \(type), finished \(sniffed)")
    case (.refused(let refusal)?, .failure(let finished)): precondition(refusal == finished, "refusal changed")
    default: preconditionFailure("feed said \(final!), finish said \(verdict)")
    }
    return verdict
}

private let magics: [(bytes: [UInt8?], type: AttachmentType)] = [
    ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], .png), ([0xFF, 0xD8, 0xFF], .jpeg),
    (Array("GIF87a".utf8), .gif), (Array("GIF89a".utf8), .gif),
    (Array("RIFF".utf8) + [nil, nil, nil, nil] + Array("WEBP".utf8), .webp), (Array("%PDF-".utf8), .pdf),
]

/// The type the input's leading bytes name, by a plain comparison.
private func magicType(_ input: UnsafeRawBufferPointer) -> AttachmentType? {
    for (bytes, type) in magics where input.count >= bytes.count {
        if zip(bytes, input).allSatisfy({ $0 == nil || $0 == $1 }) { return type }
    }
    return nil
}

/// Plain text by the standard library's rules plus ours.
private func isPlainText(_ input: UnsafeRawBufferPointer) -> Bool {
    guard !input.isEmpty, !input.contains(0), String(validating: input, as: UTF8.self) != nil else { return false }
    var rest = input[...]
    if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
    let first = rest.first { ![0x20, 0x09, 0x0A, 0x0C, 0x0D].contains($0) }
    return first != UInt8(ascii: "<")
}

private func checkSniffer(_ input: UnsafeRawBufferPointer) {
    let whole = sniff(input, cuts: [])
    if let first = input.first {
        let cut = Int(first) % (input.count + 1)
        precondition(sniff(input, cuts: [cut]) == whole, "cut at \(cut) changed the verdict")
        let step = Int(first % 7) + 1
        precondition(sniff(input, cuts: Array(stride(from: step, to: input.count, by: step))) == whole, "pieces")
    }
    switch whole {
    case .success(.text):
        precondition(magicType(input) == nil && isPlainText(input), "accepted as text: not text")
    case .success(let type):
        precondition(magicType(input) == type, "accepted as \(type) without its magic number")
    case .failure(.empty):
        precondition(input.isEmpty, "refused as empty")
    case .failure:
        precondition(magicType(input) == nil && !isPlainText(input), "refused an allowed file")
    }
    // A smaller allowed set, from the first byte's low bits.
    let mask = input.first ?? 0
    let allowed = Set(AttachmentType.allCases.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
    let narrowed = sniff(input, cuts: [], allowed: allowed)
    if case .success(let type) = whole, allowed.contains(type) {
        precondition(narrowed == whole, "a smaller allowed set refused an allowed type")
    } else {
        guard case .failure = narrowed else { preconditionFailure("a smaller allowed set accepted more") }
    }
}

private func checkHasher(_ input: UnsafeRawBufferPointer) {
    let hasher = SHA256.Hasher()
    let cut = Int(input.first ?? 0) % (input.count + 1)
    hasher.update(UnsafeRawBufferPointer(rebasing: input[..<cut]))
    hasher.update(UnsafeRawBufferPointer(rebasing: input[cut...]))
    precondition(hasher.finalize() == SHA256.hash(input), "streamed SHA-256 differs")
}

private func checkRanges(_ text: String, count: Int) {
    for size in [0, 1, Int64(count), Int64.max] {
        if case .partial(let first, let last) = ByteRange.parse(text, size: size) {
            precondition(first >= 0 && first <= last && last < size, "range \(first)-\(last) outside \(size)")
        }
    }
}

private func checkList(_ text: String) {
    guard let list = AttachmentObject.decodeList(text) else { return }
    precondition(AttachmentObject.decodeList(AttachmentObject.storedJSON(list)) == list, "stored list round trip")
    precondition(list.allSatisfy { $0.size >= 0 }, "negative size decoded")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: start, count: count)
    checkSniffer(input)
    checkHasher(input)
    let text = String(decoding: input, as: UTF8.self)
    checkRanges(text, count: count)
    checkList(text)
    return 0
}
