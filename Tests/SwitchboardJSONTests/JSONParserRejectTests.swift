import SwitchboardJSON
import Testing

/// JSONTestSuite-style `n_` cases: each must be refused, at the byte named.
@Suite("JSONParser rejects")
struct JSONParserRejectTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: [UInt8]
        let offset: Int
        init(_ name: String, _ text: String, _ offset: Int) {
            self.name = name
            self.input = Array(text.utf8)
            self.offset = offset
        }
        init(_ name: String, bytes: [UInt8], _ offset: Int) {
            self.name = name
            self.input = bytes
            self.offset = offset
        }
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // Structure
        Case("n_structure_empty", "", 0),
        Case("n_structure_whitespace_only", " \n", 2),
        Case("n_structure_open_array", "[", 1),
        Case("n_structure_close_only", "]", 0),
        Case("n_structure_trailing_garbage", #"{"a":1}x"#, 7),
        Case("n_structure_two_values", "1 2", 2),
        Case("n_structure_line_comment", "[1] // c", 4),
        Case("n_structure_block_comment", "/* c */ 1", 0),
        Case("n_structure_BOM", bytes: [0xEF, 0xBB, 0xBF, 0x31], 0),
        Case("n_structure_form_feed_whitespace", "\u{0C}1", 0),
        Case("n_structure_nbsp_whitespace", bytes: [0x20, 0xC2, 0xA0, 0x31], 1),
        Case("n_structure_utf8_outside_string", bytes: [0xC3, 0xA9], 0),
        // Arrays
        Case("n_array_extra_comma", "[1,]", 3),
        Case("n_array_extra_comma_space", "[1, ]", 4),
        Case("n_array_double_comma", "[1,,2]", 3),
        Case("n_array_leading_comma", "[,1]", 1),
        Case("n_array_missing_comma", "[1 2]", 3),
        Case("n_array_unclosed", "[1", 2),
        Case("n_array_unclosed_after_comma", "[1,", 3),
        Case("n_array_wrong_close", "[1}", 2),
        // Objects
        Case("n_object_trailing_comma", #"{"a":1,}"#, 7),
        Case("n_object_missing_colon", #"{"a" 1}"#, 5),
        Case("n_object_comma_instead_of_colon", #"{"a",1}"#, 4),
        Case("n_object_missing_value", #"{"a":}"#, 5),
        Case("n_object_single_quote_key", "{'a':1}", 1),
        Case("n_object_unquoted_key", "{a:1}", 1),
        Case("n_object_non_string_key", "{1:1}", 1),
        Case("n_object_unclosed", #"{"a":1"#, 6),
        Case("n_object_wrong_close", #"{"a":1]"#, 6),
        Case("n_object_leading_comma", #"{,"a":1}"#, 1),
        Case("n_object_duplicate_key", #"{"type":"a","type":"b"}"#, 12),
        Case("n_object_duplicate_key_escaped", #"{"a":1,"\u0061":2}"#, 7),
        // Numbers
        Case("n_number_leading_zero", "01", 0),
        Case("n_number_neg_leading_zero", "-01", 1),
        Case("n_number_leading_zero_in_array", "[00]", 1),
        Case("n_number_plus", "+1", 0),
        Case("n_number_dot_start", ".5", 0),
        Case("n_number_dot_end", "1.", 2),
        Case("n_number_dot_exp", "1.e1", 2),
        Case("n_number_exp_empty", "1e", 2),
        Case("n_number_exp_sign_only", "1e+", 3),
        Case("n_number_minus_only", "-", 1),
        Case("n_number_minus_space", "- 1", 1),
        Case("n_number_hex", "0x1", 1),
        Case("n_number_NaN", "NaN", 0),
        Case("n_number_Infinity", "Infinity", 0),
        Case("n_number_minus_Infinity", "-Infinity", 1),
        // Literals
        Case("n_literal_capital_True", "True", 0),
        Case("n_literal_truncated", "tru", 3),
        Case("n_literal_wrong_case", "nulL", 3),
        Case("n_literal_longer", "truex", 4),
        // Strings
        Case("n_string_single_quote", "'a'", 0),
        Case("n_string_unterminated", #""abc"#, 4),
        Case("n_string_unterminated_non_ascii", "\"é", 3),
        Case("n_string_control_char", "\"a\u{01}b\"", 2),
        Case("n_string_newline", "\"a\nb\"", 2),
        Case("n_string_tab", "\"\t\"", 1),
        Case("n_string_bad_escape", #""\x""#, 1),
        Case("n_string_escaped_apostrophe", #""\'""#, 1),
        Case("n_string_escape_at_end", #""\"#, 2),
        Case("n_string_short_unicode_escape", #""\u12""#, 5),
        Case("n_string_bad_hex_in_escape", #""\u12G4""#, 5),
        Case("n_string_lone_high_surrogate", #""\ud800""#, 1),
        Case("n_string_high_surrogate_then_text", #""\ud800abc""#, 1),
        Case("n_string_lone_low_surrogate", #""\udc00""#, 1),
        Case("n_string_two_high_surrogates", #""\ud800\ud800""#, 7),
        Case("n_string_high_surrogate_then_escape", #""\ud800\n""#, 1),
        // UTF-8 (RFC 3629)
        Case("n_utf8_invalid_byte", bytes: [0x22, 0xFF, 0x22], 1),
        Case("n_utf8_lone_continuation", bytes: [0x22, 0x80, 0x22], 1),
        Case("n_utf8_overlong_2_bytes", bytes: [0x22, 0xC0, 0xAF, 0x22], 1),
        Case("n_utf8_overlong_3_bytes", bytes: [0x22, 0xE0, 0x80, 0xAF, 0x22], 2),
        Case("n_utf8_overlong_4_bytes", bytes: [0x22, 0xF0, 0x80, 0x80, 0xAF, 0x22], 2),
        Case("n_utf8_surrogate", bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], 2),
        Case("n_utf8_above_10FFFF", bytes: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2),
        Case("n_utf8_truncated_at_end", bytes: [0x22, 0xE2, 0x82], 3),
        Case("n_utf8_truncated_before_quote", bytes: [0x22, 0xE2, 0x82, 0x22], 3),
        Case("n_utf8_after_escape", bytes: [0x22, 0x5C, 0x6E, 0xFE, 0x22], 3),
    ]

    @Test(arguments: cases)
    func rejects(_ testCase: Case) {
        #expect(throws: JSONParseError.self) { try JSONParser.parse(testCase.input) }
        do {
            let value = try JSONParser.parse(testCase.input)
            Issue.record("parsed as \(value)")
        } catch {
            #expect(error.offset == testCase.offset, "\(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test func messagesNameTheProblem() {
        func message(_ text: String) -> String {
            do {
                _ = try JSONParser.parse(text)
                return "parsed"
            } catch {
                return error.description
            }
        }
        #expect(message(#"{"type" "hello"}"#) == "expected ':' after object key at byte 8")
        #expect(message("[1,]") == "trailing comma in array at byte 3")
        #expect(message(#"{"a":1,"a":2}"#) == "duplicate object key at byte 7")
        #expect(message("012") == "leading zero in number at byte 0")
        #expect(message("[1] x") == "unexpected 'x' after the JSON value at byte 4")
        #expect(message(#""\ud800""#) == "high surrogate escape without a low surrogate at byte 1")
    }
}
