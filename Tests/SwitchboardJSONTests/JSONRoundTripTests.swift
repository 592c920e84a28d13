import SwitchboardJSON
import Testing

/// parse(write(v)) == v.
@Suite("JSON round trip")
struct JSONRoundTripTests {
    func roundTrip(_ value: JSONValue) throws -> JSONValue {
        var writer = JSONWriter()
        writer.value(value)
        return try JSONParser.parse(writer.bytes)
    }

    static let values: [JSONValue] = [
        nil, true, false, 0, -1, "", "plain",
        .number(JSONNumber(Int64.max)), .number(JSONNumber(Int64.min)),
        .number(JSONNumber("123456789012345678901234567890.5e-300")!),
        .number(JSONNumber("-0")!), .number(JSONNumber(1e-300)), .number(JSONNumber(-2.5e300)),
        "quote \" backslash \\ slash / controls \u{0}\u{1}\u{1F}\n\r\t\u{8}\u{C}",
        "unicode é € 😀 𝄞 \u{10FFFF} \u{FFFF} separators \u{2028}\u{2029}",
        [[[[]]], [:], ["": [nil]]],
        [
            "type": "message", "seq": 58, "body": "Hello\nwörld 👋", "sender": ["id": "v-42", "name": nil],
            "flags": [true, false], "ratio": 0.25,
        ],
    ]

    @Test(arguments: values)
    func valueSurvives(_ value: JSONValue) throws {
        #expect(try roundTrip(value) == value)
    }

    @Test func parsedTextSurvives() throws {
        let text = #"{"a":[1,-0.5e+10,"\ud83d\ude00\u2028\u0007"],"b":{"c":null,"d":"\/"}}"#
        let value = try JSONParser.parse(text)
        #expect(try roundTrip(value) == value)
        #expect(value["a"]?.arrayValue?[2] == "😀\u{2028}\u{7}")
    }

    @Test func deepestAllowedNestingSurvives() throws {
        var value: JSONValue = "leaf"
        for level in 0..<32 { value = level % 2 == 0 ? [value] : ["k": value] }
        #expect(try roundTrip(value) == value)
    }
}
