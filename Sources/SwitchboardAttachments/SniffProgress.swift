/// What `ContentSniffer.feed` knows after the bytes fed so far.
public enum SniffProgress: Equatable, Sendable {
    /// Not known yet: feed more, or call `finish()` at the end of the file.
    case undecided
    /// The file's magic number names this allowed type; final.
    case accepted(AttachmentType)
    /// The file cannot be accepted, whatever follows; final.
    case refused(SniffRefusal)
}
