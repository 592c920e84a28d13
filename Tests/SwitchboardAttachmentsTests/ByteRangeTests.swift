import SwitchboardAttachments
import Testing

@Suite("ByteRange")
struct ByteRangeTests {
    func parse(_ header: String?, size: Int64 = 100) -> ByteRangeRequest { ByteRange.parse(header, size: size) }

    @Test func noHeaderIsTheWhole() {
        #expect(parse(nil) == .whole)
    }

    @Test func firstAndLast() {
        #expect(parse("bytes=0-0") == .partial(first: 0, last: 0))
        #expect(parse("bytes=0-99") == .partial(first: 0, last: 99))
        #expect(parse("bytes=10-19") == .partial(first: 10, last: 19))
        #expect(parse("bytes=99-99") == .partial(first: 99, last: 99))
        #expect(parse("Bytes=1-2") == .partial(first: 1, last: 2))
        #expect(parse("BYTES=007-008") == .partial(first: 7, last: 8))
    }

    @Test func openEnded() {
        #expect(parse("bytes=0-") == .partial(first: 0, last: 99))
        #expect(parse("bytes=42-") == .partial(first: 42, last: 99))
        #expect(parse("bytes=99-") == .partial(first: 99, last: 99))
    }

    @Test func suffix() {
        #expect(parse("bytes=-5") == .partial(first: 95, last: 99))
        #expect(parse("bytes=-100") == .partial(first: 0, last: 99))
        #expect(parse("bytes=-1000") == .partial(first: 0, last: 99))
        #expect(parse("bytes=-1", size: 1) == .partial(first: 0, last: 0))
    }

    /// RFC 9110 14.1.1: a suffix range of length 0 selects nothing.
    @Test func zeroSuffixIsUnsatisfiable() {
        #expect(parse("bytes=-0") == .unsatisfiable)
        #expect(parse("bytes=-000") == .unsatisfiable)
    }

    @Test func lastBeyondTheEndIsClipped() {
        #expect(parse("bytes=50-1000") == .partial(first: 50, last: 99))
        #expect(parse("bytes=0-100") == .partial(first: 0, last: 99))
    }

    @Test func firstAtOrPastTheEndIsUnsatisfiable() {
        #expect(parse("bytes=100-") == .unsatisfiable)
        #expect(parse("bytes=100-200") == .unsatisfiable)
        #expect(parse("bytes=1000-1000") == .unsatisfiable)
    }

    /// RFC 9110 14.1.1: last-pos below first-pos is invalid; 14.2: ignored.
    @Test func backwardsRangeIsIgnored() {
        #expect(parse("bytes=5-2") == .whole)
        #expect(parse("bytes=500-2") == .whole)
    }

    @Test func emptyRepresentation() {
        #expect(parse("bytes=0-0", size: 0) == .unsatisfiable)
        #expect(parse("bytes=0-", size: 0) == .unsatisfiable)
        #expect(parse("bytes=-5", size: 0) == .whole)
        #expect(parse("bytes=-0", size: 0) == .unsatisfiable)
        #expect(parse("bytes=5-2", size: 0) == .whole)
        #expect(parse(nil, size: 0) == .whole)
    }

    @Test func severalRangesAreTheWhole() {
        #expect(parse("bytes=0-1,5-6") == .whole)
        #expect(parse("bytes=0-1, 5-6") == .whole)
        #expect(parse("bytes=-5,0-") == .whole)
    }

    /// RFC 9110 5.6.1.2: empty list elements are ignored, leaving one range.
    @Test func emptyListElementsAreIgnored() {
        #expect(parse("bytes=0-1,") == .partial(first: 0, last: 1))
        #expect(parse("bytes=, 3-4 ,") == .partial(first: 3, last: 4))
        #expect(parse("  bytes=3-4\t") == .partial(first: 3, last: 4))
        #expect(parse("bytes=,") == .whole)
    }

    @Test func garbageIsTheWhole() {
        for header in [
            "", "bytes", "bytes=", "bytes=-", "bytes=--5", "bytes=a-b", "bytes=1-b", "bytes=a-1", "bytes=1",
            "bytes=1-2-3",
            "bytes=+1-2", "bytes=1 - 2", "bytes =0-1", "bytes= 0-1x", "items=0-1", "bits=0-1", "=0-1", "bytes=0x10-",
            "bytes=-5-", "bytes=\u{0661}-2", "bytes=１-2",
        ] {
            #expect(parse(header) == .whole, "\(header)")
        }
    }

    @Test func hugeNumbers() {
        let huge = "99999999999999999999999999"
        #expect(parse("bytes=\(huge)-") == .unsatisfiable)
        #expect(parse("bytes=\(huge)-\(huge)") == .unsatisfiable)
        #expect(parse("bytes=5-\(huge)") == .partial(first: 5, last: 99))
        #expect(parse("bytes=-\(huge)") == .partial(first: 0, last: 99))
        #expect(parse("bytes=\(huge)-5") == .whole)
        // Both past Int64, the last smaller: invalid, not "equal after saturation".
        #expect(parse("bytes=\(huge)-\(huge.dropLast())") == .whole)
        #expect(parse("bytes=9223372036854775807-", size: Int64.max) == .unsatisfiable)
        #expect(
            parse("bytes=9223372036854775806-", size: Int64.max) == .partial(first: Int64.max - 1, last: Int64.max - 1))
        #expect(parse("bytes=-9223372036854775807", size: Int64.max) == .partial(first: 0, last: Int64.max - 1))
    }
}
