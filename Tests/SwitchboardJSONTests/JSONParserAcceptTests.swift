import SwitchboardJSON
import Testing

/// JSONTestSuite-style `y_` cases: each must parse to the value given.
@Suite("JSONParser accepts")
struct JSONParserAcceptTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: [UInt8]
        let expected: JSONValue
        init(_ name: String, _ text: String, _ expected: JSONValue) {
            self.name = name
            self.input = Array(text.utf8)
            self.expected = expected
        }
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case("y_array_empty", "[]", []),
        Case("y_object_empty", "{}", [:]),
        Case("y_array_nested_empty", "[[],{}]", [[], [:]]),
        Case("y_structure_whitespace", " \t\r\n[ 1 ,\n2 ] \n", [1, 2]),
        Case("y_structure_lonely_string", #""abc""#, "abc"),
        Case("y_structure_lonely_int", "42", 42),
        Case("y_structure_lonely_true", "true", true),
        Case("y_structure_lonely_false", "false", false),
        Case("y_structure_lonely_null", "null", nil),
        Case("y_array_heterogeneous", #"[null,true,false,"",0]"#, [nil, true, false, "", 0]),
        Case("y_object_simple", #"{"a":1,"b":[2]}"#, ["a": 1, "b": [2]]),
        Case("y_object_empty_key", #"{"":0}"#, ["": 0]),
        Case("y_object_nested", #"{"a":{"b":{"c":null}}}"#, ["a": ["b": ["c": nil]]]),
        Case("y_object_whitespace", "{ \"a\" :\t1 }", ["a": 1]),
        Case(
            "y_object_frame", #"{"type":"send","ref":"r3","session_id":"9f0e","body":"Hi","seq":58}"#,
            ["type": "send", "ref": "r3", "session_id": "9f0e", "body": "Hi", "seq": 58]),
        Case("y_number_negative_zero", "-0", .number(JSONNumber("-0")!)),
        Case("y_number_fraction", "-1.5", .number(JSONNumber("-1.5")!)),
        Case("y_number_exponent", "1E+2", .number(JSONNumber("1E+2")!)),
        Case("y_number_small_exponent", "1e-400", .number(JSONNumber("1e-400")!)),
        Case("y_number_zero_fraction", "0.0e0", .number(JSONNumber("0.0e0")!)),
        Case(
            "y_number_huge_integer", "123456789012345678901234567890",
            .number(JSONNumber("123456789012345678901234567890")!)),
        Case("y_number_int64_min", "-9223372036854775808", .number(JSONNumber(Int64.min))),
        Case("y_string_escapes", #""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        Case("y_string_unicode_escape", #""\u00e9\u00E9""#, "éé"),
        Case("y_string_escaped_nul", #""a\u0000b""#, "a\u{0}b"),
        Case("y_string_surrogate_pair", #""\ud83d\ude00""#, "😀"),
        Case("y_string_last_surrogate_pair", #""\uDBFF\uDFFF""#, "\u{10FFFF}"),
        Case("y_string_noncharacter_escape", #""\uFFFF""#, "\u{FFFF}"),
        Case("y_string_raw_utf8", #""é€😀𝄞""#, "é€😀𝄞"),
        Case("y_string_raw_u2028", "\"a\u{2028}b\"", "a\u{2028}b"),
        Case("y_string_escaped_u2028", #""\u2028""#, "\u{2028}"),
        Case("y_string_mixed_ascii_and_escapes", #""ab\ncd é ef""#, "ab\ncd é ef"),
        Case("y_string_del_is_not_control", "\"\u{7F}\"", "\u{7F}"),
    ]

    @Test(arguments: cases)
    func accepts(_ testCase: Case) throws {
        let value = try JSONParser.parse(testCase.input)
        #expect(value == testCase.expected)
    }

    @Test func objectKeepsOrderAndLooksUpByKey() throws {
        let value = try JSONParser.parse(#"{"z":1,"a":2,"m":3}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["z", "a", "m"])
        #expect(object.count == 3)
        #expect(object["a"] == 2)
        #expect(object["q"] == nil)
        #expect(value["m"]?.int64Value == 3)
    }

    @Test func manyKeysUseTheHashedDuplicateCheck() throws {
        let members = (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let value = try JSONParser.parse("{\(members)}")
        #expect(value.objectValue?.count == 40)
        #expect(value["k39"]?.int64Value == 39)
        #expect(throws: JSONParseError.self) { try JSONParser.parse("{\(members),\"k3\":0}") }
    }

    @Test func parsesFromEveryInputKind() throws {
        let text = #"{"type":"ping"}"#
        let bytes = Array(text.utf8)
        let fromBuffer = try bytes.withUnsafeBytes { raw in try JSONParser.parse(raw) }
        #expect(try JSONParser.parse(text) == fromBuffer)
        #expect(try JSONParser.parse(bytes) == fromBuffer)
        #expect(fromBuffer["type"]?.stringValue == "ping")
    }
}
