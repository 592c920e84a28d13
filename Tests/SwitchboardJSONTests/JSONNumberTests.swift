import SwitchboardJSON
import Testing

@Suite("JSONNumber")
struct JSONNumberTests {
    func number(_ text: String) throws -> JSONNumber {
        guard case .number(let number) = try JSONParser.parse(text) else {
            throw JSONParseError(offset: 0, message: "")
        }
        return number
    }

    @Test func int64OnlyForIntegerLiteralsInRange() throws {
        #expect(try number("0").int64 == 0)
        #expect(try number("-0").int64 == 0)
        #expect(try number("58").int64 == 58)
        #expect(try number("9223372036854775807").int64 == Int64.max)
        #expect(try number("-9223372036854775808").int64 == Int64.min)
        #expect(try number("9223372036854775808").int64 == nil)
        #expect(try number("-9223372036854775809").int64 == nil)
        #expect(try number("99999999999999999999999").int64 == nil)
        #expect(try number("1.0").int64 == nil)
        #expect(try number("1e2").int64 == nil)
    }

    @Test func rawTextIsKept() throws {
        for text in ["1E+2", "-0.000", "123456789012345678901234567890", "1e-07"] {
            #expect(try number(text).raw == text)
        }
    }

    @Test func doubles() throws {
        #expect(try number("1.5").double == 1.5)
        #expect(try number("-2e-3").double == -0.002)
        #expect(try number("9223372036854775808").double == 9_223_372_036_854_775_808.0)
        #expect(try number("1e400").double == nil)
        #expect(try number("1e-400").double == 0)
    }

    @Test func validatingInitializer() {
        #expect(JSONNumber("12.5")?.raw == "12.5")
        #expect(JSONNumber("012") == nil)
        #expect(JSONNumber(" 1") == nil)
        #expect(JSONNumber("\"1\"") == nil)
        #expect(JSONNumber("NaN") == nil)
        #expect(JSONNumber(Int64(7)) == JSONNumber("7"))
        #expect(JSONNumber(0.5).raw == "0.5")
    }
}
