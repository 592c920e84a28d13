import SwitchboardAttachments
import Testing

@Suite("ContentSniffer")
struct ContentSnifferTests {
    static let all = Set(AttachmentType.allCases)
    static let allNames = "PNG, JPEG, GIF, WebP, PDF, plain text"

    /// Feeds `pieces` in order and finishes; also returns every feed's answer.
    func sniff(
        _ pieces: [[UInt8]], allowed: Set<AttachmentType> = all
    ) -> (
        progress: [SniffProgress], verdict: Result<AttachmentType, SniffRefusal>
    ) {
        var sniffer = ContentSniffer(allowed: allowed)
        var progress: [SniffProgress] = []
        for piece in pieces { progress.append(piece.withUnsafeBytes { sniffer.feed($0) }) }
        return (progress, sniffer.finish())
    }

    /// The verdict of `bytes` fed whole, one byte at a time, and cut in two at every offset.
    func verdicts(_ bytes: [UInt8], allowed: Set<AttachmentType> = all) -> [Result<AttachmentType, SniffRefusal>] {
        var results = [sniff([bytes], allowed: allowed).verdict, sniff(bytes.map { [$0] }, allowed: allowed).verdict]
        for cut in 0...bytes.count {
            results.append(sniff([Array(bytes[..<cut]), Array(bytes[cut...])], allowed: allowed).verdict)
        }
        return results
    }

    @Test(arguments: SniffSamples.accepted.map(\.name))
    func acceptedWholeAndSplitAtEveryOffset(name: String) throws {
        let sample = try #require(SniffSamples.accepted.first { $0.name == name })
        for verdict in verdicts(sample.bytes) {
            #expect(verdict == .success(sample.type), "\(name)")
        }
    }

    @Test(arguments: SniffSamples.refused.map(\.name))
    func refusedWholeAndSplitAtEveryOffset(name: String) throws {
        let sample = try #require(SniffSamples.refused.first { $0.name == name })
        let expected = SniffRefusal.notAllowed(allowed: AttachmentType.allCases, found: sample.found)
        for verdict in verdicts(sample.bytes) {
            #expect(verdict == .failure(expected), "\(name)")
        }
    }

    /// A magic type is accepted by the feed that completes its magic number, not later.
    @Test func magicTypesAreAcceptedAsSoonAsTheMagicNumberIsComplete() {
        let magicLengths: [(bytes: [UInt8], length: Int, type: AttachmentType)] = [
            (SniffSamples.png, 8, .png), (SniffSamples.jpeg, 3, .jpeg), (SniffSamples.gif89, 6, .gif),
            (SniffSamples.webp, 12, .webp), (SniffSamples.pdf, 5, .pdf),
        ]
        for (bytes, length, type) in magicLengths {
            let progress = sniff(bytes.map { [$0] }).progress
            #expect(progress[..<(length - 1)].allSatisfy { $0 == .undecided }, "\(type)")
            #expect(progress[(length - 1)...].allSatisfy { $0 == .accepted(type) }, "\(type)")
        }
    }

    @Test func textIsOnlyAcceptedAtTheEnd() {
        let result = sniff(SniffSamples.text.map { [$0] })
        #expect(result.progress.allSatisfy { $0 == .undecided })
        #expect(result.verdict == .success(.text))
    }

    /// Refusals come from the feed that shows them, not only at the end.
    @Test func aNulByteIsRefusedByTheFeedThatCarriesIt() {
        let result = sniff([Array("hello".utf8), [0], Array("world".utf8)])
        let refusal = SniffRefusal.notAllowed(allowed: AttachmentType.allCases, found: .nulByte(offset: 5))
        #expect(result.progress == [.undecided, .refused(refusal), .refused(refusal)])
        #expect(result.verdict == .failure(refusal))
    }

    @Test func htmlIsRefusedAtItsFirstCharacter() {
        let result = sniff([Array("  <".utf8), Array("html>".utf8)])
        let refusal = SniffRefusal.notAllowed(allowed: AttachmentType.allCases, found: .markup)
        #expect(result.progress == [.refused(refusal), .refused(refusal)])
    }

    @Test func aFinalAnswerIgnoresWhateverFollows() {
        let result = sniff([Array(SniffSamples.png.prefix(8)), Array("<html>".utf8), [0xFF, 0x00]])
        #expect(result.progress == [.accepted(.png), .accepted(.png), .accepted(.png)])
        #expect(result.verdict == .success(.png))
    }

    @Test func emptyFilesAreRefused() {
        #expect(sniff([]).verdict == .failure(.empty))
        #expect(sniff([[], []]).verdict == .failure(.empty))
        #expect(SniffRefusal.empty.message == "the file is empty")
    }

    @Test func finishTwiceGivesTheSameVerdict() {
        var sniffer = ContentSniffer(allowed: Self.all)
        _ = SniffSamples.text.withUnsafeBytes { sniffer.feed($0) }
        #expect(sniffer.finish() == .success(.text))
        #expect(sniffer.finish() == .success(.text))
    }

    /// Multi-byte characters cut between feeds: every two-way cut of a text made
    /// only of two-, three- and four-byte characters.
    @Test func utf8SequencesSplitAcrossFeeds() {
        let bytes = Array("é€😀ü中𝄞".utf8)
        for verdict in verdicts(bytes) { #expect(verdict == .success(.text)) }
        // Every three-way cut as well.
        for a in 0...bytes.count {
            for b in a...bytes.count {
                let pieces = [Array(bytes[..<a]), Array(bytes[a..<b]), Array(bytes[b...])]
                #expect(sniff(pieces).verdict == .success(.text))
            }
        }
    }

    /// The boundaries of table 3-7, each as the last character of a text.
    @Test func utf8Boundaries() {
        let valid: [[UInt8]] = [
            [0x7F], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF3, 0xBF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF],
        ]
        for character in valid {
            #expect(sniff([Array("x".utf8) + character]).verdict == .success(.text), "\(character)")
        }
        let invalid: [(bytes: [UInt8], offset: Int64)] = [
            ([0xC1, 0xBF], 1), ([0xE0, 0x9F, 0xBF], 2), ([0xED, 0xBF, 0xBF], 2), ([0xF0, 0x8F, 0xBF, 0xBF], 2),
            ([0xF4, 0x90, 0x80, 0x80], 2), ([0xF5, 0x80, 0x80, 0x80], 1), ([0xFF], 1), ([0xC2, 0x41], 2),
            ([0xE1, 0x80, 0x41], 3), ([0xF1, 0x80, 0x80], 4),
        ]
        for (character, offset) in invalid {
            let refusal = SniffRefusal.notAllowed(allowed: AttachmentType.allCases, found: .invalidUTF8(offset: offset))
            #expect(sniff([Array("x".utf8) + character]).verdict == .failure(refusal), "\(character)")
        }
    }

    @Test func onlyAllowedTypesPass() {
        let imagesOnly: Set<AttachmentType> = [.png, .jpeg]
        #expect(sniff([SniffSamples.jpeg], allowed: imagesOnly).verdict == .success(.jpeg))
        #expect(
            sniff([SniffSamples.gif89], allowed: imagesOnly).verdict
                == .failure(.notAllowed(allowed: [.png, .jpeg], found: .type(.gif))))
        #expect(
            sniff([SniffSamples.text], allowed: imagesOnly).verdict
                == .failure(.notAllowed(allowed: [.png, .jpeg], found: .unrecognized)))
        // A file shorter than the magic number it starts like, text not allowed.
        #expect(
            sniff([Array("GIF8".utf8)], allowed: [.gif]).verdict
                == .failure(.notAllowed(allowed: [.gif], found: .unrecognized)))
        let textOnly = sniff([SniffSamples.pdf], allowed: [.text])
        #expect(textOnly.progress == [.refused(.notAllowed(allowed: [.text], found: .type(.pdf)))])
        #expect(
            sniff([SniffSamples.png], allowed: []).verdict == .failure(.notAllowed(allowed: [], found: .type(.png))))
        for verdict in verdicts(SniffSamples.html, allowed: imagesOnly) {
            #expect(verdict == .failure(.notAllowed(allowed: [.png, .jpeg], found: .unrecognized)))
        }
    }

    @Test func refusalMessages() {
        let refusal = SniffRefusal.notAllowed(allowed: AttachmentType.allCases, found: .markup)
        #expect(refusal.message == "the file is not one of the allowed types (\(Self.allNames))")
        #expect("\(refusal)" == refusal.message)
        #expect(
            SniffRefusal.notAllowed(allowed: [.png, .text], found: .unrecognized).message
                == "the file is not one of the allowed types (PNG, plain text)")
        #expect(
            SniffRefusal.mismatch(sniffed: .png, declared: "image/jpeg").message
                == "the file's bytes are image/png, not the declared image/jpeg")
    }

    @Test func declaredTypeCheck() {
        // Declarations that say nothing agree with anything.
        for declared in [nil, "", "  ", "application/octet-stream", "Application/Octet-Stream; name=x"] {
            for type in AttachmentType.allCases {
                #expect(ContentSniffer.check(declared: declared, sniffed: type), "\(declared ?? "nil")")
            }
        }
        #expect(ContentSniffer.check(declared: "image/png", sniffed: .png))
        #expect(ContentSniffer.check(declared: "IMAGE/JPEG", sniffed: .jpeg))
        #expect(ContentSniffer.check(declared: "text/plain; charset=utf-8", sniffed: .text))
        #expect(ContentSniffer.check(declared: "application/pdf", sniffed: .pdf))
        // Disguises: the declared type names another type than the bytes.
        #expect(!ContentSniffer.check(declared: "image/jpeg", sniffed: .png))
        #expect(!ContentSniffer.check(declared: "image/png", sniffed: .pdf))
        #expect(!ContentSniffer.check(declared: "image/png", sniffed: .text))
        #expect(!ContentSniffer.check(declared: "text/html", sniffed: .text))
        #expect(!ContentSniffer.check(declared: "image/svg+xml", sniffed: .text))
        #expect(!ContentSniffer.check(declared: "garbage", sniffed: .gif))
    }

    /// What the gateway does with an upload: sniff, then hold it against the declaration.
    @Test func disguisedUploads() {
        #expect(sniff([SniffSamples.png]).verdict == .success(.png))
        #expect(!ContentSniffer.check(declared: "image/jpeg", sniffed: .png))
        #expect(sniff([SniffSamples.pdf]).verdict == .success(.pdf))
        #expect(!ContentSniffer.check(declared: "image/png", sniffed: .pdf))
        // An HTML page named .png and declared image/png never gets as far as the check.
        #expect(
            sniff([SniffSamples.html]).verdict
                == .failure(.notAllowed(allowed: AttachmentType.allCases, found: .markup)))
    }
}
