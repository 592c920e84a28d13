import SwitchboardChat
import SwitchboardPostgres

/// A workspace's business hours as stored (migration 10): `weekly` is the
/// API's JSON, written by the gateway only after it checked it.
public struct StoredBusinessHours: Sendable, Equatable {
    public let workspaceID: String
    public let timeZone: String
    public let weeklyJSON: String
    /// `YYYY-MM-DD`, ascending.
    public let closedDates: [String]

    public init(workspaceID: String, timeZone: String, weeklyJSON: String, closedDates: [String]) {
        self.workspaceID = workspaceID
        self.timeZone = timeZone
        self.weeklyJSON = weeklyJSON
        self.closedDates = closedDates
    }
}

extension ChatQueries {
    private static let businessHoursColumns = """
        workspace_id::text, time_zone, weekly::text,
        (SELECT coalesce(string_agg(d::text, ',' ORDER BY d), '') FROM unnest(closed_dates) d)
        """

    /// The workspace's business hours; nil when it has none (always open).
    public func businessHours(workspaceID: String) throws(QueryError) -> StoredBusinessHours? {
        let result = try run(
            "SELECT \(Self.businessHoursColumns) FROM business_hours WHERE workspace_id = $1::uuid", [workspaceID],
            retryable: true)
        return try Self.businessHours(result).first
    }

    /// Every workspace's business hours (what a node keeps in memory for `availability`).
    public func allBusinessHours(limit: Int) throws(QueryError) -> [StoredBusinessHours] {
        let result = try run(
            "SELECT \(Self.businessHoursColumns) FROM business_hours ORDER BY workspace_id LIMIT $1::int",
            [String(limit)], retryable: true)
        return try Self.businessHours(result)
    }

    /// Replaces the workspace's business hours (its row made if its workspace has none yet).
    public func setBusinessHours(_ hours: StoredBusinessHours) throws(QueryError) {
        _ = try run(
            """
            WITH workspace AS (
                INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'Workspace ' || $1::uuid::text)
                ON CONFLICT (id) DO NOTHING
            )
            INSERT INTO business_hours (workspace_id, time_zone, weekly, closed_dates, updated_at)
            VALUES ($1::uuid, $2, $3::jsonb, coalesce(string_to_array(nullif($4, ''), ','), '{}')::date[], now())
            ON CONFLICT (workspace_id) DO UPDATE
               SET time_zone = EXCLUDED.time_zone, weekly = EXCLUDED.weekly,
                   closed_dates = EXCLUDED.closed_dates, updated_at = now()
            """,
            [hours.workspaceID, hours.timeZone, hours.weeklyJSON, hours.closedDates.joined(separator: ",")],
            retryable: true)
    }

    private static func businessHours(_ result: PostgresResult) throws(QueryError) -> [StoredBusinessHours] {
        var rows: [StoredBusinessHours] = []
        for row in 0..<result.rowCount {
            let dates = result.string(row, 3) ?? ""
            rows.append(
                StoredBusinessHours(
                    workspaceID: try RowDecoding.required(result, row, 0),
                    timeZone: try RowDecoding.required(result, row, 1),
                    weeklyJSON: try RowDecoding.required(result, row, 2),
                    closedDates: dates.isEmpty ? [] : dates.split(separator: ",").map(String.init)))
        }
        return rows
    }
}
