import SwitchboardHTTP
import Testing

@Suite("HTTPMethod")
struct HTTPMethodTests {
    @Test func standardNamesMapToCases() {
        #expect(HTTPMethod("GET") == .get)
        #expect(HTTPMethod("DELETE") == .delete)
        #expect(HTTPMethod("PURGE") == .other("PURGE"))
        #expect(HTTPMethod.other("PATCH") == .patch)
        #expect(HTTPMethod.other("PATCH").hashValue == HTTPMethod.patch.hashValue)
    }

    /// RFC 9110 9.1: method names are case-sensitive.
    @Test func caseSensitive() throws {
        #expect(HTTPMethod("get") != .get)
        let request = try #require(feed("get / HTTP/1.1\r\nHost: a\r\n\r\n").requests.first)
        #expect(request.method == .other("get"))
    }
}
