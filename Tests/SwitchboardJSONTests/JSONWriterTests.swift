import SwitchboardJSON
import Testing

@Suite("JSONWriter")
struct JSONWriterTests {
    func written(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        body(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    func escaped(_ string: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.string(string)
        return writer.bytes
    }

    @Test func controlCharactersExactBytes() {
        #expect(escaped("\u{00}\u{01}\u{1F}") == Array(#""\u0000\u0001\u001f""#.utf8))
        #expect(escaped("\n\r\t\u{08}\u{0C}") == Array(#""\n\r\t\b\f""#.utf8))
        #expect(escaped("a\u{1B}b") == Array(#""a\u001bb""#.utf8))
        #expect(escaped("\u{7F}") == [0x22, 0x7F, 0x22])
    }

    @Test func quoteAndBackslashExactBytes() {
        #expect(escaped(#"a"b\c"#) == Array(#""a\"b\\c""#.utf8))
        #expect(escaped("/</script>") == Array(#""/</script>""#.utf8))
        #expect(escaped("") == Array(#""""#.utf8))
    }

    @Test func lineAndParagraphSeparatorsAreEscaped() {
        #expect(escaped("a\u{2028}b\u{2029}c") == Array(#""a\u2028b\u2029c""#.utf8))
        // Other characters starting with 0xE2 pass through.
        #expect(escaped("€…\u{2027}\u{202A}") == [0x22] + Array("€…\u{2027}\u{202A}".utf8) + [0x22])
        #expect(escaped("é😀") == [0x22] + Array("é😀".utf8) + [0x22])
    }

    @Test func commasAreInsertedAutomatically() {
        let text = written { writer in
            writer.beginObject()
            writer.key("type")
            writer.string("message")
            writer.key("seq")
            writer.int(58)
            writer.key("tags")
            writer.beginArray()
            writer.bool(true)
            writer.null()
            writer.beginObject()
            writer.endObject()
            writer.beginArray()
            writer.endArray()
            writer.double(1.5)
            writer.endArray()
            writer.key("sender")
            writer.beginObject()
            writer.key("id")
            writer.string("v-42")
            writer.endObject()
            writer.endObject()
        }
        #expect(text == #"{"type":"message","seq":58,"tags":[true,null,{},[],1.5],"sender":{"id":"v-42"}}"#)
    }

    @Test func integers() {
        #expect(written { $0.int(0) } == "0")
        #expect(written { $0.int(-1) } == "-1")
        #expect(written { $0.int(Int64.max) } == "9223372036854775807")
        #expect(written { $0.int(Int64.min) } == "-9223372036854775808")
        #expect(written { $0.int(1_000_000) } == "1000000")
    }

    @Test func doubles() throws {
        #expect(written { $0.double(1.5) } == "1.5")
        #expect(written { $0.double(-0.0) } == "-0.0")
        for value in [1e300, Double.leastNonzeroMagnitude, 0.1, -123.456e-7, Double.greatestFiniteMagnitude] {
            let text = written { $0.double(value) }
            let parsed = try JSONParser.parse(text)
            guard case .number(let number) = parsed else {
                Issue.record("\(text) is not a number")
                continue
            }
            #expect(number.double == value)
        }
    }

    @Test func stringFromUTF8Bytes() {
        let text = written { writer in
            writer.beginArray()
            Array("tab\there é".utf8).withUnsafeBytes { writer.string(utf8: $0) }
            writer.string("x")
            writer.endArray()
        }
        #expect(text == #"["tab\there é","x"]"#)
    }

    @Test func resetKeepsCapacityAndForgetsCommas() {
        var writer = JSONWriter(capacity: 1024)
        writer.beginArray()
        writer.int(1)
        writer.endArray()
        let capacity = writer.bytes.capacity
        writer.reset()
        #expect(writer.bytes.isEmpty)
        #expect(writer.bytes.capacity == capacity)
        writer.int(2)
        #expect(writer.bytes == Array("2".utf8))
    }

    @Test func valueKeepsMemberOrderAndNumberText() throws {
        var object = JSONObject()
        object["z"] = .number(JSONNumber("1E+2")!)
        object["a"] = ["x", nil, false]
        let text = written { $0.value(.object(object)) }
        #expect(text == #"{"z":1E+2,"a":["x",null,false]}"#)
    }
}
