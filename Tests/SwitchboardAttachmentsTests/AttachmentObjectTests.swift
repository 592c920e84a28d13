import SwitchboardAttachments
import SwitchboardJSON
import Testing

@Suite("AttachmentObject")
struct AttachmentObjectTests {
    static let signer = AttachmentURLSigner(jwtSecret: Array("test-secret-that-is-at-least-32-bytes-long".utf8))
    static let id = "0f3c2a1e-8b7d-4c6a-9e5f-1a2b3c4d5e6f"
    static let sha = String(repeating: "9b1e", count: 16)

    static let image = AttachmentObject(
        id: id, filename: "receipt.png", contentType: "image/png", size: 48213, sha256: sha, width: 800, height: 600,
        hasThumbnail: true)
    static let document = AttachmentObject(
        id: id, filename: "notes.txt", contentType: "text/plain", size: 12, sha256: sha)

    func json(_ object: AttachmentObject, expires: Int64 = 1_764_000_000) -> String {
        var writer = JSONWriter()
        object.appendJSON(to: &writer, signer: Self.signer, expires: expires)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func imageExactBytes() {
        #expect(
            json(Self.image)
                == #"{"id":"0f3c2a1e-8b7d-4c6a-9e5f-1a2b3c4d5e6f","filename":"receipt.png","content_type":"image/png","#
                + #""size":48213,"sha256":"\#(Self.sha)","width":800,"height":600,"#
                + #""url":"/api/v1/attachments/0f3c2a1e-8b7d-4c6a-9e5f-1a2b3c4d5e6f?exp=1764000000&sig=a_GRMKk1276gd5TeNxxJCrtaDn3jpbUj03buGyFSh0s","#
                + #""thumbnail_url":"/api/v1/attachments/0f3c2a1e-8b7d-4c6a-9e5f-1a2b3c4d5e6f/thumbnail?exp=1764000000&sig=cGFWnU7UblnnXiWKgYXvT4JraXdcuSwm1ue8Rba5UfQ"}"#
        )
    }

    @Test func documentHasNoDimensionsNorThumbnailURL() {
        let url = Self.signer.path(id: Self.id, variant: .original, expires: 5)
        #expect(
            json(Self.document, expires: 5)
                == #"{"id":"\#(Self.id)","filename":"notes.txt","content_type":"text/plain","size":12,"#
                + #""sha256":"\#(Self.sha)","url":"\#(url)"}"#)
    }

    @Test func filenamesAreEscaped() {
        var object = Self.document
        object.filename = "a \"quoted\" \\ name\n\u{01}\u{2028}é😀.txt"
        let text = json(object)
        #expect(text.contains(#""filename":"a \"quoted\" \\ name\n\u0001\u2028é😀.txt","#))
        // And it parses back to the same name.
        let parsed = try? JSONParser.parse(text)
        #expect(parsed?["filename"]?.stringValue == object.filename)
    }

    @Test func writesIntoAnOngoingDocument() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("attachments")
        writer.beginArray()
        Self.document.appendJSON(to: &writer, signer: Self.signer, expires: 1)
        Self.image.appendJSON(to: &writer, signer: Self.signer, expires: 1)
        writer.endArray()
        writer.endObject()
        let parsed = try? JSONParser.parse(writer.bytes)
        #expect(parsed?["attachments"]?.arrayValue?.count == 2)
        #expect(parsed?["attachments"]?.arrayValue?[1]["thumbnail_url"]?.stringValue != nil)
    }

    @Test func storedExactBytes() {
        #expect(
            AttachmentObject.storedJSON([Self.image, Self.document])
                == #"[{"id":"\#(Self.id)","filename":"receipt.png","content_type":"image/png","size":48213,"#
                + #""sha256":"\#(Self.sha)","width":800,"height":600,"thumbnail":true},"#
                + #"{"id":"\#(Self.id)","filename":"notes.txt","content_type":"text/plain","size":12,"#
                + #""sha256":"\#(Self.sha)","thumbnail":false}]"#)
        #expect(AttachmentObject.storedJSON([]) == "[]")
    }

    @Test func storedRoundTrip() {
        var odd = Self.document
        odd.filename = "\"q\" \\ \u{00}\u{7F} 中文 😀"
        odd.size = Int64.max
        odd.width = 0
        let list = [Self.image, Self.document, odd]
        #expect(AttachmentObject.decodeList(AttachmentObject.storedJSON(list)) == list)
        #expect(AttachmentObject.decodeList("[]") == [])
    }

    /// PostgreSQL's `jsonb` text: keys reordered, spaces after colons and commas, nulls.
    @Test func decodesJSONBText() {
        let text = """
            [{"id": "\(Self.id)", "size": 12, "width": null, "height": null, "sha256": "\(Self.sha)", \
            "filename": "notes.txt", "thumbnail": false, "content_type": "text/plain", "later": {"x": 1}}]
            """
        #expect(AttachmentObject.decodeList(text) == [Self.document])
    }

    @Test func rejectsMalformedLists() {
        let good = #"{"id":"a","filename":"f","content_type":"text/plain","size":1,"sha256":"s","thumbnail":false}"#
        #expect(AttachmentObject.decodeList("[\(good)]") != nil)
        for text in [
            "", "null", "{}", "[1]", "[null]", "[{}]", "[\(good),]", "[\(good)] x", "[\(good)", good, "[[\(good)]]",
        ] {
            #expect(AttachmentObject.decodeList(text) == nil, "\(text)")
        }
        // Elements that are not a stored attachment, alone and beside a good one.
        let bad = [
            "1", "null", "{}", "[]",
            good.replacingOccurrences(#""thumbnail":false"#, #""thumbnail":"false""#),
            good.replacingOccurrences(#","thumbnail":false"#, ""),
            good.replacingOccurrences(#""id":"a","#, ""),
            good.replacingOccurrences(#""id":"a""#, #""id":1"#),
            good.replacingOccurrences(#""filename":"f""#, #""filename":null"#),
            good.replacingOccurrences(#""content_type":"text/plain","#, ""),
            good.replacingOccurrences(#""sha256":"s""#, #""sha256":["s"]"#),
            good.replacingOccurrences(#""size":1"#, #""size":"1""#),
            good.replacingOccurrences(#""size":1"#, #""size":-1"#),
            good.replacingOccurrences(#""size":1"#, #""size":1.5"#),
            good.replacingOccurrences(#""size":1"#, #""size":1e3"#),
            good.replacingOccurrences(#""size":1"#, #""size":99999999999999999999"#),
            good.replacingOccurrences(#""size":1"#, #""size":1,"size":2"#),
            good.replacingOccurrences(#""size":1"#, #""size":1,"width":"800""#),
            good.replacingOccurrences(#""size":1"#, #""size":1,"height":-1"#),
            good.replacingOccurrences(#""size":1"#, #""size":1,"width":true"#),
        ]
        for text in bad {
            #expect(AttachmentObject.decodeList("[\(text)]") == nil, "[\(text)]")
            #expect(AttachmentObject.decodeList("[\(good),\(text)]") == nil, "[good,\(text)]")
        }
    }
}

extension String {
    /// (Foundation-free) every occurrence of `target` replaced by `replacement`.
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
