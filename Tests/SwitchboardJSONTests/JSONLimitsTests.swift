import SwitchboardJSON
import Testing

@Suite("JSONLimits")
struct JSONLimitsTests {
    func error(_ text: String, _ limits: JSONLimits = JSONLimits()) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func depth32IsAcceptedAnd33Refused() throws {
        let ok = String(repeating: "[", count: 32) + String(repeating: "]", count: 32)
        #expect(error(ok) == nil)
        let deep = String(repeating: "[", count: 33) + String(repeating: "]", count: 33)
        #expect(error(deep)?.offset == 32)
        #expect(error(deep)?.message == "nesting deeper than 32 levels")
        let objects = String(repeating: #"{"a":"#, count: 33) + "1" + String(repeating: "}", count: 33)
        #expect(error(objects)?.offset == 32 * 5)
    }

    @Test func hostileNestingIsRefusedWithoutDeepRecursion() {
        let hostile = String(repeating: "[", count: 200_000)
        #expect(error(hostile)?.offset == 32)
        #expect(error(hostile, JSONLimits(maxDepth: 512))?.offset == 512)
    }

    @Test func oversizeStringIsRefused() {
        let limits = JSONLimits(maxStringBytes: 8)
        #expect(error(#""12345678""#, limits) == nil)
        #expect(error(#""123456789""#, limits)?.offset == 0)
        #expect(error(#"["ok","123456789"]"#, limits)?.offset == 6)
        // Counted after decoding: five \u00e9 escapes are ten bytes of UTF-8.
        #expect(error(#""\u00e9\u00e9\u00e9\u00e9""#, limits) == nil)
        #expect(error(#""\u00e9\u00e9\u00e9\u00e9\u00e9""#, limits)?.offset == 0)
        #expect(error(#"{"123456789":1}"#, limits)?.offset == 1)
        let big = "\"" + String(repeating: "x", count: 65537) + "\""
        #expect(error(big)?.message == "string longer than 65536 bytes")
    }

    @Test func memberCountIsBounded() {
        let limits = JSONLimits(maxMembers: 3)
        #expect(error("[1,2,3]", limits) == nil)
        #expect(error("[1,2,3,4]", limits)?.offset == 7)
        #expect(error(#"{"a":1,"b":2,"c":3}"#, limits) == nil)
        #expect(error(#"{"a":1,"b":2,"c":3,"d":4}"#, limits)?.offset == 19)
    }

    @Test func totalSizeIsBounded() {
        let limits = JSONLimits(maxTotalBytes: 10)
        #expect(error("[1,2,3,45]", limits) == nil)
        #expect(error("[1,2,3,456]", limits)?.offset == 10)
    }
}
