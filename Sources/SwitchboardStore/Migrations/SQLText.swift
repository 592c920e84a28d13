/// Pieces of earlier migrations' SQL, taken and edited for a later one.
///
/// Why: the writer's function is 300 lines of SQL, and a migration that
/// changes three of them would otherwise repeat the rest, twice (the new
/// version, and the old one for `down`). A later migration instead names what
/// it changes against the text an earlier one created. The text of a
/// migration never changes once released (its checksum is recorded), so an
/// edit that no longer finds its place is a programming error, caught by
/// every test that builds the migration list.
enum SQLText {
    /// The `CREATE [OR REPLACE] FUNCTION name(...) ... $$;` statement for
    /// `name` in `sql` (bodies quoted with `$$`, as every function here is).
    static func function(_ name: String, in sql: String) -> String {
        let starts = ["CREATE FUNCTION \(name)(", "CREATE OR REPLACE FUNCTION \(name)("].compactMap {
            sql.firstRange(of: $0)
        }
        guard let start = starts.min(by: { $0.lowerBound < $1.lowerBound }),
            let opener = sql[start.upperBound...].firstRange(of: "AS $$"),
            let closer = sql[opener.upperBound...].firstRange(of: "$$;")
        else { preconditionFailure("no function \(name) in the SQL given") }
        return String(sql[start.lowerBound..<closer.upperBound])
    }

    /// `sql` with each of the `count` occurrences of `old` replaced by `new`.
    static func replacing(_ old: String, with new: String, count: Int, in sql: String) -> String {
        let found = sql.ranges(of: old).count
        precondition(found == count, "expected \(count) of \(old.debugDescription), found \(found)")
        return sql.replacing(old, with: new)
    }

    /// `sql` with each of the `count` spans that begin with `start` and end
    /// with the first `end` after it replaced by `new`: for a change to a
    /// block whose lines an earlier migration wrote, named by its first and
    /// last lines rather than copied whole.
    static func replacing(
        from start: String, through end: String, with new: String, count: Int, in sql: String
    )
        -> String
    {
        var result = ""
        var rest = sql[...]
        var found = 0
        while let opening = rest.firstRange(of: start) {
            guard let closing = rest[opening.upperBound...].firstRange(of: end) else {
                preconditionFailure("a span from \(start.debugDescription) without \(end.debugDescription)")
            }
            result += rest[..<opening.lowerBound] + new
            rest = rest[closing.upperBound...]
            found += 1
        }
        precondition(found == count, "expected \(count) spans from \(start.debugDescription), found \(found)")
        return result + rest
    }

    /// `text` with `indent` before each of its lines that is not empty: a
    /// block written at the left margin, placed at the depth it goes to.
    static func indented(_ text: String, by indent: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : indent + $0 }
            .joined(separator: "\n")
    }

    /// The first span of `sql` that begins with `start` and ends with the
    /// first `end` after it (`end` kept, or left out with `keepingEnd` false):
    /// a block of an earlier migration's SQL taken to be used again.
    static func span(from start: String, through end: String, keepingEnd: Bool = true, in sql: String) -> String {
        guard let opening = sql.firstRange(of: start), let closing = sql[opening.upperBound...].firstRange(of: end)
        else { preconditionFailure("no span from \(start.debugDescription) to \(end.debugDescription)") }
        return String(sql[opening.lowerBound..<(keepingEnd ? closing.upperBound : closing.lowerBound)])
    }

    /// One statement per function signature, each `statement(signature)` on
    /// a line of its own (a migration that grants, revokes or sets the same
    /// thing on several functions, and its `down`).
    static func each(_ signatures: [String], _ statement: (String) -> String) -> String {
        signatures.map(statement).joined(separator: "\n") + "\n"
    }
}
