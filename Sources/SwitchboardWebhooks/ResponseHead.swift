/// The start of a receiver's answer as the delivery log keeps it: text of at
/// most `DeliveryOutcome.responseHeadBytes` UTF-8 bytes, whatever was sent.
public enum ResponseHead {
    /// Invalid UTF-8 becomes U+FFFD, and so does NUL (PostgreSQL's text cannot
    /// hold it); a character cut by the limit is dropped, and since
    /// replacements are longer than what they replace, characters are dropped
    /// from the end until the text fits.
    public static func text(from bytes: some Collection<UInt8>) -> String {
        let limit = DeliveryOutcome.responseHeadBytes
        var kept = Array(bytes.prefix(limit))
        // A multi-byte character cut by the limit: drop its lead and continuation bytes.
        if bytes.count > limit, let lead = kept.lastIndex(where: { $0 & 0xC0 != 0x80 }), kept[lead] >= 0xC0 {
            let length = kept[lead] >= 0xF0 ? 4 : kept[lead] >= 0xE0 ? 3 : 2
            if kept.count - lead < length { kept.removeSubrange(lead...) }
        }
        var text = String(decoding: kept, as: UTF8.self)
        if text.utf8.contains(0) { text = String(text.map { $0 == "\0" ? "\u{FFFD}" : $0 }) }
        while text.utf8.count > limit { text.removeLast() }
        return text
    }
}
