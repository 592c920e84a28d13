import SwitchboardHTTP
import Testing

@Suite("HTTPRequest")
struct HTTPRequestTests {
    @Test(
        "target splits into path and query",
        arguments: [
            ("/", "/", nil),
            ("/a/b?x=1?2", "/a/b", "x=1?2"),
            ("/a?", "/a", ""),
            ("http://h.example/p?q", "/p", "q"),
            ("https://h.example", "/", nil),
            ("http://h.example?q=1", "/", "q=1"),
            ("*", "*", nil),
        ] as [(String, String, String?)])
    func targetSplit(target: String, path: String, query: String?) {
        let request = HTTPRequest(method: .get, target: target, headers: ["Host": "h"])
        #expect(request.path == path)
        #expect(request.query == query)
    }

    @Test func queryItemsWithoutQuery() {
        #expect(HTTPRequest(method: .get, target: "/x").queryItems().isEmpty)
    }

    @Test func queryItemsKeepMalformedEscapes() {
        let request = HTTPRequest(method: .get, target: "/x?a=%4&b=%%41&c=%41%42")
        #expect(request.queryItems().map(\.1) == ["%4", "%A", "AB"])
    }

    @Test func defaultKeepAliveFollowsVersion() {
        #expect(HTTPRequest(method: .get, target: "/").keepAlive)
        #expect(!HTTPRequest(method: .get, target: "/", version: .http10).keepAlive)
        #expect(!HTTPRequest(method: .get, target: "/", headers: ["Connection": "close"]).keepAlive)
    }

    @Test func upgradeNeedsBothFields() {
        #expect(
            HTTPRequest(method: .get, target: "/", headers: ["Connection": "Upgrade", "Upgrade": "websocket"]).isUpgrade
        )
        #expect(!HTTPRequest(method: .get, target: "/", headers: ["Upgrade": "websocket"]).isUpgrade)
    }
}
