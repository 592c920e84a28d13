import SwitchboardAttachments
import Testing

@Suite("AttachmentType")
struct AttachmentTypeTests {
    @Test func mediaTypes() {
        #expect(
            AttachmentType.allCases.map(\.mediaType) == [
                "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain",
            ])
        #expect(AttachmentType.allCases.filter(\.isImage) == [.png, .jpeg, .gif, .webp])
    }

    @Test func mediaTypeIsNormalised() {
        #expect(AttachmentType(mediaType: "image/png") == .png)
        #expect(AttachmentType(mediaType: "IMAGE/PNG") == .png)
        #expect(AttachmentType(mediaType: " image/webp\t") == .webp)
        #expect(AttachmentType(mediaType: "text/plain; charset=utf-8") == .text)
        #expect(AttachmentType(mediaType: "Text/Plain ;charset=UTF-8") == .text)
        #expect(AttachmentType(mediaType: "application/pdf;") == .pdf)
    }

    @Test func otherMediaTypesAreNone() {
        for other in ["", ";", "image/svg+xml", "text/html", "image/png+x", "image /png", "image/jpg", "png", "*/*"] {
            #expect(AttachmentType(mediaType: other) == nil, "\(other)")
        }
    }

    @Test func variants() {
        #expect(AttachmentVariant.original.rawValue == "original")
        #expect(AttachmentVariant.thumbnail.rawValue == "thumbnail")
    }
}
