/// Which file of an attachment a URL serves: the uploaded file, or the
/// thumbnail the gateway made of an image. The raw value is the word signed
/// into the URL (docs/attachments.md, "Signed URLs").
public enum AttachmentVariant: String, CaseIterable, Sendable {
    case original
    case thumbnail
}
