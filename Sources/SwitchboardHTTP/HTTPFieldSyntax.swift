/// Whether text another module writes into a message head is a header's
/// name or value as the request parser reads them (`HTTPSyntax`'s byte
/// classes): the webhook client checks what it is given before it writes a
/// request, so no header can add lines of its own.
public enum HTTPFieldSyntax {
    /// A token of at least one character (RFC 9110 5.1).
    public static func isFieldName(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { !$0.isEmpty && $0.allSatisfy(HTTPSyntax.isTokenChar) }
    }

    /// VCHAR, obs-text, SP and HTAB only: no CR, LF, NUL or other control (RFC 9110 5.5).
    public static func isFieldValue(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { $0.allSatisfy(HTTPSyntax.isFieldValueChar) }
    }
}
