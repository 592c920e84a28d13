import SwitchboardAttachments

/// Small files of each kind, and files dressed up as something they are not.
/// Each magic sample goes on past its magic number with bytes that are not text
/// (NUL, 0xFF), so that only the magic number can make it accepted.
enum SniffSamples {
    static let binaryTail: [UInt8] = [0x00, 0x00, 0x00, 0x0D, 0xFF, 0xFE, 0x80, 0x00, 0x01, 0x02]

    static let png: [UInt8] =
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array("\0\0\0\rIHDR".utf8) + binaryTail
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0".utf8) + binaryTail
    static let exifJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10] + Array("Exif\0\0".utf8) + binaryTail
    static let gif87: [UInt8] = Array("GIF87a".utf8) + [0x01, 0x00, 0x01, 0x00, 0x80] + binaryTail
    static let gif89: [UInt8] = Array("GIF89a".utf8) + [0x01, 0x00, 0x01, 0x00, 0x80] + binaryTail
    /// The RIFF size is any four bytes, here ones that are not UTF-8.
    static let webp: [UInt8] = Array("RIFF".utf8) + [0xFF, 0xFE, 0x00, 0x80] + Array("WEBPVP8 ".utf8) + binaryTail
    static let pdf: [UInt8] = Array("%PDF-1.7\n%".utf8) + [0xE2, 0xE3, 0xCF, 0xD3, 0x0A] + binaryTail
    static let text: [UInt8] = Array("Hello, wörld: € 😀 — naïve café\r\n\tline two\n".utf8)
    static let textWithBOM: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("  \nplain text after a BOM".utf8)

    static let accepted: [(name: String, bytes: [UInt8], type: AttachmentType)] = [
        ("png", png, .png), ("jpeg", jpeg, .jpeg), ("exif jpeg", exifJPEG, .jpeg), ("gif87a", gif87, .gif),
        ("gif89a", gif89, .gif), ("webp", webp, .webp), ("pdf", pdf, .pdf), ("text", text, .text),
        ("text with BOM", textWithBOM, .text), ("one letter", Array("a".utf8), .text),
        ("only whitespace", Array(" \n\t\r\n".utf8), .text), ("only a BOM", [0xEF, 0xBB, 0xBF], .text),
        // Shorter than the magic number they begin like: plain text.
        ("GIF8 only", Array("GIF8".utf8), .text), ("%PDF only", Array("%PDF".utf8), .text),
        ("RIFF text", Array("RIFF is a container, WEBP is not here".utf8), .text),
        ("text with a less-than inside", Array("a < b and <b>bold</b>".utf8), .text),
    ]

    static let html: [UInt8] = Array("<!DOCTYPE html><html><script>alert(1)</script></html>".utf8)
    static let svg: [UInt8] = Array(#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>"#.utf8)
    static let xml: [UInt8] = Array(#"<?xml version="1.0"?><svg/>"#.utf8)
    static let htmlAfterBOMAndWhitespace: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(" \r\n\t\u{0C}<html>".utf8)
    static let exe: [UInt8] = [0x4D, 0x5A, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00]
    static let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x08, 0x00, 0x08, 0x00]
    static let utf16LE: [UInt8] = [0xFF, 0xFE, 0x68, 0x00, 0x69, 0x00]
    static let utf16BENoBOM: [UInt8] = [0x00, 0x68, 0x00, 0x69]
    static let nul: [UInt8] = Array("hello\0world".utf8)
    static let cutAtEnd: [UInt8] = Array("hello ".utf8) + [0xE2, 0x82]
    static let overlong: [UInt8] = Array("ab".utf8) + [0xC0, 0xAF]
    static let overlongThreeBytes: [UInt8] = Array("ab".utf8) + [0xE0, 0x80, 0xAF]
    static let surrogate: [UInt8] = Array("ab".utf8) + [0xED, 0xA0, 0x80]
    static let pastMaximum: [UInt8] = Array("ab".utf8) + [0xF4, 0x90, 0x80, 0x80]
    static let strayContinuation: [UInt8] = Array("ab".utf8) + [0x80]
    static let wav: [UInt8] = Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WAVEfmt ".utf8)
    static let pngPrefix: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

    static let refused: [(name: String, bytes: [UInt8], found: SniffRefusal.Finding)] = [
        ("html", html, .markup), ("svg", svg, .markup), ("xml", xml, .markup),
        ("html after BOM and whitespace", htmlAfterBOMAndWhitespace, .markup),
        ("exe", exe, .invalidUTF8(offset: 2)), ("zip", zip, .nulByte(offset: 5)),
        ("utf-16le", utf16LE, .invalidUTF8(offset: 0)), ("utf-16be", utf16BENoBOM, .nulByte(offset: 0)),
        ("nul", nul, .nulByte(offset: 5)), ("cut at end", cutAtEnd, .invalidUTF8(offset: 8)),
        ("overlong", overlong, .invalidUTF8(offset: 2)), ("overlong 3", overlongThreeBytes, .invalidUTF8(offset: 3)),
        ("surrogate", surrogate, .invalidUTF8(offset: 3)), ("past U+10FFFF", pastMaximum, .invalidUTF8(offset: 3)),
        ("stray continuation", strayContinuation, .invalidUTF8(offset: 2)), ("wav", wav, .nulByte(offset: 5)),
        ("png prefix", pngPrefix, .invalidUTF8(offset: 0)),
    ]
}
