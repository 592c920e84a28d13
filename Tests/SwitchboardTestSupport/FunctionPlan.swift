import Foundation
import SwitchboardPostgres

/// The plan a PL/pgSQL function's `RETURN QUERY` statement gets under the
/// function's own settings, for tests that hold such plans to a shape
/// (`ExpansionPlanTests`, `WebhookQueuePlanTests`): its settings, its
/// statement as a prepared one, and the nodes of an `EXPLAIN (FORMAT JSON)`.
public enum FunctionPlan {
    /// The function's own settings (`proconfig`) but its search path, as name and value.
    public static func settings(_ db: PostgresConnection, _ function: String) throws -> [(String, String)] {
        try db.query("SELECT unnest(proconfig) FROM pg_proc WHERE oid = '\(function)'::regprocedure")
            .rows.compactMap { $0.first ?? nil }
            .filter { !$0.hasPrefix("search_path=") }
            .map { setting in
                let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }
    }

    /// Sets the function's own settings on `db`'s session, so that what it plans next is planned
    /// as inside the function.
    public static func adoptSettings(_ db: PostgresConnection, of function: String) throws {
        for setting in try settings(db, function) {
            try db.query("SELECT set_config($1, $2, false)", [setting.0, setting.1])
        }
    }

    /// The function's `RETURN QUERY` statement, each of its parameters and variables named in
    /// `placeholders` replaced by its placeholder (longest names first is the caller's care).
    public static func statement(
        _ db: PostgresConnection, _ function: String, placeholders: [(String, String)]
    ) throws -> String {
        guard
            let source = try db.query("SELECT prosrc FROM pg_proc WHERE oid = '\(function)'::regprocedure")
                .string(0, 0),
            let start = source.range(of: "RETURN QUERY"),
            let body = source.range(of: "END;", options: .backwards),
            let end = source.range(of: ";", options: .backwards, range: start.upperBound..<body.lowerBound)
        else { throw Shapeless(function: function) }
        var statement = String(source[start.upperBound..<end.lowerBound])
        for (name, placeholder) in placeholders {
            statement = statement.replacingOccurrences(of: name, with: placeholder)
        }
        return statement
    }

    /// The top node of the JSON plan `explain` (an `EXPLAIN (FORMAT JSON) ...`) prints.
    public static func plan(_ db: PostgresConnection, _ explain: String) throws -> [String: Any] {
        guard let explained = try db.query(explain).string(0, 0),
            let document = try JSONSerialization.jsonObject(with: Data(explained.utf8)) as? [[String: Any]],
            let plan = document.first?["Plan"] as? [String: Any]
        else { throw Shapeless(function: explain) }
        return plan
    }

    /// A node of a JSON plan and every node under it.
    public static func nodes(_ plan: [String: Any]) -> [[String: Any]] {
        [plan] + (plan["Plans"] as? [[String: Any]] ?? []).flatMap(nodes)
    }

    /// A function without a `RETURN QUERY ...; END;`, or an `EXPLAIN` without a JSON plan.
    public struct Shapeless: Error, CustomStringConvertible {
        public let function: String
        public var description: String { "no statement or plan found for \(function)" }
    }
}
