import SwitchboardJSON
import Testing

@Suite("JSONObject")
struct JSONObjectTests {
    @Test func subscriptSetsReplacesAndRemoves() {
        var object = JSONObject()
        object["a"] = 1
        object["b"] = 2
        object["a"] = 3
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == 3)
        object["a"] = nil
        #expect(object.keys == ["b"])
        #expect(object.count == 1)
        #expect(!object.isEmpty)
    }

    @Test func equalityIsOrdered() {
        let ab: JSONObject = ["a": 1, "b": 2]
        let ba: JSONObject = ["b": 2, "a": 1]
        #expect(ab != ba)
        #expect(ab == ["a": 1, "b": 2])
        #expect(Array(ab.members.map(\.0)) == ["a", "b"])
    }
}
