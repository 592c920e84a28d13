/// Scripts as the gateway serves them: without comments, indentation, or the
/// spaces and line breaks between tokens that JavaScript does not need. Every
/// visitor's page loads the widget and the SDK, so their size is a budget
/// (`Tests/Browser/test_budgets.py`); the source stays written for people.
///
/// A tokenizer, not a pattern: strings, template literals (with their `${}`
/// expressions, minified in turn), regular expression literals and comments are
/// recognised as JavaScript does, and their text is kept byte for byte. Names
/// are never changed. Two rules keep the meaning:
/// - a space is kept wherever two tokens would otherwise run together
///   (`return x`, `a - -b`, `a + ++b`, `1 .toString()`, `/ /re/`);
/// - a line break is dropped only where automatic semicolon insertion cannot
///   depend on it: after `;`, `{`, `,`, `(`, `[` or an operator that needs a
///   right-hand side, or before `}`, `)`, `]`, `,`, `;`, `.`, `?`, `:`, `=`,
///   `&` or `|` (none of which can start a statement, so none follows a
///   statement that a line break ended). Everywhere else it stays.
///
/// Where a `/` is a division or starts a regular expression is decided by the
/// token before it, as usual for tokenizers without a parser: after a name,
/// a number, a literal, `)`, `]`, `}` or a postfix `++`/`--`, a division;
/// after a keyword such as `return` or `typeof`, or any other punctuation, a
/// regular expression.
public enum ScriptMinifier {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// 1-based line of the source where the unterminated literal or comment starts.
        public let line: Int
        public let problem: String
        public var description: String { "line \(line): \(problem)" }

        public init(line: Int, problem: String) {
            self.line = line
            self.problem = problem
        }
    }

    /// The script, minified.
    public static func minify(_ source: String) throws(Failure) -> String {
        var scanner = Scanner(Array(source.utf8), recordTokens: false)
        try scanner.code(insideTemplate: false)
        return String(decoding: scanner.output, as: UTF8.self)
    }

    /// The tokens that carry meaning, in order (template literals as their text pieces and the
    /// tokens of their expressions): a script and its minified form have the same.
    public static func tokens(_ source: String) throws(Failure) -> [String] {
        var scanner = Scanner(Array(source.utf8), recordTokens: true)
        try scanner.code(insideTemplate: false)
        return scanner.tokens.map { String(decoding: $0, as: UTF8.self) }
    }
}

private struct Scanner {
    enum Kind { case start, word, number, punctuation, literal }

    let source: [UInt8]
    var at = 0
    var output: [UInt8] = []
    let recordTokens: Bool
    var tokens: [ArraySlice<UInt8>] = []
    /// The last token written: its kind, its text (names matter for `/`), and the punctuation just
    /// before it (0 when it was not): `++` and `--` are two tokens here.
    var kind = Kind.start
    var lastWord: ArraySlice<UInt8> = []
    var punctuationBefore: UInt8 = 0
    var spaceBefore = false
    var lineBreakBefore = false

    init(_ source: [UInt8], recordTokens: Bool) {
        self.source = source
        self.recordTokens = recordTokens
        output.reserveCapacity(source.count)
    }

    /// Code up to the end of the source, or (in a template's `${`) up to its closing `}`, consumed.
    mutating func code(insideTemplate: Bool) throws(ScriptMinifier.Failure) {
        var depth = 0
        while at < source.count {
            let byte = source[at]
            switch byte {
            case ascii("\n"):
                lineBreakBefore = true
                at += 1
            case ascii(" "), ascii("\t"), ascii("\r"), 0x0B, 0x0C:
                spaceBefore = true
                at += 1
            case ascii("/") where peek(1) == ascii("/"):
                while at < source.count && source[at] != ascii("\n") { at += 1 }
            case ascii("/") where peek(1) == ascii("*"):
                let start = at
                guard let end = find([ascii("*"), ascii("/")], from: at + 2) else {
                    throw failure(start, "unterminated comment")
                }
                // A comment that spans lines is a line break to automatic semicolon insertion.
                if source[start..<end].contains(ascii("\n")) { lineBreakBefore = true } else { spaceBefore = true }
                at = end + 2
            case ascii("/") where regularExpressionMayStart:
                try regularExpression()
            case ascii("\""), ascii("'"):
                try string(quote: byte)
            case ascii("`"):
                try template()
            case ascii("}") where insideTemplate && depth == 0:
                at += 1
                return
            default:
                if isWordByte(byte) {
                    word()
                } else {
                    if byte == ascii("{") { depth += 1 } else if byte == ascii("}") { depth -= 1 }
                    emit(at..<at + 1, as: .punctuation)
                    at += 1
                }
            }
        }
        if insideTemplate { throw failure(at, "unterminated template literal") }
    }

    // MARK: tokens

    mutating func word() {
        let start = at
        let number = source[at] >= ascii("0") && source[at] <= ascii("9")
        while at < source.count && (isWordByte(source[at]) || (number && source[at] == ascii("."))) { at += 1 }
        emit(start..<at, as: number ? .number : .word)
        lastWord = source[start..<at]
    }

    mutating func string(quote: UInt8) throws(ScriptMinifier.Failure) {
        let start = at
        at += 1
        while true {
            guard at < source.count, source[at] != ascii("\n") else { throw failure(start, "unterminated string") }
            if source[at] == ascii("\\") {
                // An escape, or a line continuation (a backslash before CR LF escapes both).
                at += source[safe: at + 1] == ascii("\r") && source[safe: at + 2] == ascii("\n") ? 3 : 2
                continue
            }
            at += 1
            if source[at - 1] == quote { break }
        }
        emit(start..<at, as: .literal)
    }

    mutating func regularExpression() throws(ScriptMinifier.Failure) {
        let start = at
        at += 1
        var inClass = false
        while true {
            guard at < source.count, source[at] != ascii("\n") else {
                throw failure(start, "unterminated regular expression")
            }
            let byte = source[at]
            at += byte == ascii("\\") ? 2 : 1
            if byte == ascii("[") {
                inClass = true
            } else if byte == ascii("]") {
                inClass = false
            } else if byte == ascii("/") && !inClass {
                break
            }
        }
        while at < source.count && isWordByte(source[at]) { at += 1 }  // flags
        emit(start..<at, as: .literal)
    }

    /// Its text byte for byte; its `${}` expressions minified like any code.
    mutating func template() throws(ScriptMinifier.Failure) {
        let start = at
        var piece = at  // where the current piece of text starts: the opening backtick, or a `}`
        at += 1
        while true {
            guard at < source.count else { throw failure(start, "unterminated template literal") }
            let byte = source[at]
            if byte == ascii("\\") {
                at += 2
            } else if byte == ascii("`") {
                at += 1
                emit(piece..<at, as: .literal, glued: piece != start)
                return
            } else if byte == ascii("$") && peek(1) == ascii("{") {
                at += 2
                emit(piece..<at, as: .punctuation, glued: piece != start)
                // The expression starts as after any `{`, and its last token is followed by the `}`.
                try code(insideTemplate: true)
                piece = at - 1
            } else {
                at += 1
            }
        }
    }

    // MARK: writing

    /// Writes a token, with a space or a line break before it where the source had one and dropping
    /// it could change the meaning. `glued`: a template's text after one of its expressions.
    mutating func emit(_ range: Range<Int>, as newKind: Kind, glued: Bool = false) {
        let first = source[range.lowerBound]
        if !glued && kind != .start {
            if lineBreakBefore && !lineBreakDroppable(before: range) {
                output.append(ascii("\n"))
            } else if (spaceBefore || lineBreakBefore) && wouldJoin(output.last ?? 0, first) {
                output.append(ascii(" "))
            }
        }
        punctuationBefore = kind == .punctuation ? output.last ?? 0 : 0
        output.append(contentsOf: source[range])
        if recordTokens { tokens.append(source[range]) }
        kind = newKind
        spaceBefore = false
        lineBreakBefore = false
    }

    /// Whether the last character written and `next` would read as one token, or as another token.
    func wouldJoin(_ last: UInt8, _ next: UInt8) -> Bool {
        if isWordByte(last) && isWordByte(next) { return true }
        if kind == .number && next == ascii(".") { return true }
        switch (last, next) {
        case (ascii("+"), ascii("+")), (ascii("-"), ascii("-")), (ascii("/"), ascii("/")), (ascii("/"), ascii("*")),
            (ascii("<"), ascii("!")), (ascii("-"), ascii(">")):
            return true
        default:
            return false
        }
    }

    func lineBreakDroppable(before token: Range<Int>) -> Bool {
        if kind == .punctuation, let last = output.last, Self.needsMore.contains(last) { return true }
        let next = source[token.lowerBound]
        // `.5` can start a statement: a number, not a member access.
        if next == ascii("."), let after = source[safe: token.lowerBound + 1],
            after >= ascii("0") && after <= ascii("9")
        {
            return false
        }
        return Self.continuesExpression.contains(next)
    }

    /// Punctuation after which the statement goes on (what follows a line break there cannot start
    /// another statement without a syntax error either way).
    static let needsMore = Set(";{,([=&|?:<>*%!~^".utf8)
    /// Punctuation that cannot begin a statement, so a line break before it never ended one.
    static let continuesExpression = Set("})],;.?:=&|".utf8)

    var regularExpressionMayStart: Bool {
        switch kind {
        case .start: return true
        case .word: return Self.keywordsBeforeExpressions.contains(Array(lastWord))
        case .number, .literal: return false
        case .punctuation:
            let last = output.last ?? 0
            if last == ascii(")") || last == ascii("]") || last == ascii("}") { return false }
            // `x++ / 2`: a postfix operator ends an operand.
            if (last == ascii("+") || last == ascii("-")) && punctuationBefore == last { return false }
            return true
        }
    }

    static let keywordsBeforeExpressions: Set<[UInt8]> = Set(
        [
            "return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw", "instanceof",
            "yield", "await",
        ].map { Array($0.utf8) })

    // MARK: helpers

    func peek(_ offset: Int) -> UInt8? { source[safe: at + offset] }

    func find(_ needle: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + needle.count <= source.count {
            if source[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    func failure(_ offset: Int, _ problem: String) -> ScriptMinifier.Failure {
        ScriptMinifier.Failure(
            line: source[..<min(offset, source.count)].filter { $0 == ascii("\n") }.count + 1, problem: problem)
    }
}

/// Name characters: ASCII letters, digits, `_`, `$`, a backslash (a `\u` escape in a name) and every
/// byte of a non-ASCII character (kept whole: nothing is ever inserted inside one).
private func isWordByte(_ byte: UInt8) -> Bool {
    (byte >= ascii("a") && byte <= ascii("z")) || (byte >= ascii("A") && byte <= ascii("Z"))
        || (byte >= ascii("0") && byte <= ascii("9")) || byte == ascii("_") || byte == ascii("$")
        || byte == ascii("\\") || byte >= 0x80
}

private func ascii(_ character: Unicode.Scalar) -> UInt8 { UInt8(character.value) }

extension Array where Element == UInt8 {
    fileprivate subscript(safe index: Int) -> UInt8? { index >= 0 && index < count ? self[index] : nil }
}
