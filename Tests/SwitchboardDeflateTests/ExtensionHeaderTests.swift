import SwitchboardDeflate
import Testing

struct ExtensionHeaderTests {
    @Test func parsesListsParametersAndQuotedValues() throws {
        let offers = try #require(ExtensionHeader.parse("foo, bar; a; b=1 ; c=\"x\\yz\",baz"))
        #expect(
            offers == [
                ExtensionOffer(name: "foo", parameters: []),
                ExtensionOffer(
                    name: "bar",
                    parameters: [
                        .init(name: "a", value: nil), .init(name: "b", value: "1"), .init(name: "c", value: "xyz"),
                    ]),
                ExtensionOffer(name: "baz", parameters: []),
            ])
    }

    @Test func ignoresEmptyListElements() throws {
        let offers = try #require(ExtensionHeader.parse(" , foo,, "))
        #expect(offers.map(\.name) == ["foo"])
    }

    @Test(arguments: [
        "foo;", "foo; =1", "foo; a=", "foo bar", "foo; a=\"\"", "foo; a=\"b c\"", "foo; a=\"b", "fo\"o", "foo; a=1 2",
    ])
    func rejectsMalformed(_ value: String) {
        #expect(ExtensionHeader.parse(value) == nil)
    }
}
