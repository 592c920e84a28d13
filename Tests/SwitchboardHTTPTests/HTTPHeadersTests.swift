import SwitchboardHTTP
import Testing

@Suite("HTTPHeaders")
struct HTTPHeadersTests {
    let headers: HTTPHeaders = [
        "Host": "a", "Connection": "keep-alive, Upgrade", "Upgrade": "websocket", "Accept": "x",
        "accept": "y, z", "X-Empty": "",
    ]

    @Test func firstIsCaseInsensitive() {
        #expect(headers.first("HOST") == "a")
        #expect(headers.first("accept") == "x")
        #expect(headers.first("missing") == nil)
    }

    @Test func valuesInOrder() {
        #expect(headers.values("Accept") == ["x", "y, z"])
        #expect(headers.values("nope").isEmpty)
    }

    @Test func tokenLists() {
        #expect(headers.contains("connection", token: "upgrade"))
        #expect(headers.contains("Connection", token: "KEEP-ALIVE"))
        #expect(!headers.contains("Connection", token: "close"))
        #expect(!headers.contains("Connection", token: "keep"))
        #expect(headers.contains("Accept", token: "z"))
        #expect(!headers.contains("X-Empty", token: ""))
        #expect(HTTPHeaders.tokenList(" ,close , ", contains: "Close"))
    }

    @Test func addAndRemove() {
        var copy = headers
        copy.add(name: "X-New", value: "1")
        #expect(copy.count == headers.count + 1)
        copy.remove("ACCEPT")
        #expect(copy.values("accept").isEmpty)
        #expect(copy.first("x-new") == "1")
    }
}
