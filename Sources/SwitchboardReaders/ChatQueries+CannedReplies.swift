import SwitchboardPostgres

/// Canned replies (migration 16): a workspace's, listed by shortcut, saved,
/// changed and deleted. Each call is one statement; a shortcut already taken
/// or a full workspace is an answer, not an error.
extension ChatQueries {
    /// Enough for any team's saved answers, and a bound on what the console loads.
    public static let maxCannedReplies = 500

    public func cannedReplies(workspaceID: String) throws(QueryError) -> [CannedReply] {
        let result = try run(
            """
            SELECT \(Self.cannedColumns) FROM canned_replies c
             WHERE c.workspace_id = $1::uuid ORDER BY c.shortcut LIMIT $2::int
            """, [workspaceID, String(Self.maxCannedReplies)], retryable: true)
        var replies: [CannedReply] = []
        for row in 0..<result.rowCount { replies.append(try Self.cannedReply(result, row)) }
        return replies
    }

    /// Saves a new reply (its workspace's row made if it has none yet). The
    /// refusals are read in the same statement, from the rows before it.
    public func createCannedReply(
        workspaceID: String, shortcut: String, body: String, createdBy: String
    ) throws(QueryError) -> CannedReplySave {
        let result = try run(
            """
            WITH workspace AS (
                INSERT INTO workspaces (id, name) VALUES ($1::uuid, 'Workspace ' || $1::uuid::text)
                ON CONFLICT (id) DO NOTHING
            ),
            c AS (
                INSERT INTO canned_replies (workspace_id, shortcut, body, created_by)
                SELECT $1::uuid, $2, $3, $4
                 WHERE (SELECT count(*) FROM canned_replies o WHERE o.workspace_id = $1::uuid) < $5::int
                ON CONFLICT (workspace_id, shortcut) DO NOTHING
                RETURNING *
            )
            SELECT 'saved', \(Self.cannedColumns) FROM c
            UNION ALL
            SELECT CASE WHEN EXISTS (SELECT 1 FROM canned_replies o
                                      WHERE o.workspace_id = $1::uuid AND o.shortcut = $2)
                        THEN 'taken' ELSE 'full' END,
                   NULL, NULL, NULL, NULL, NULL, NULL
             WHERE NOT EXISTS (SELECT 1 FROM c)
            """, [workspaceID, shortcut, body, createdBy, String(Self.maxCannedReplies)], retryable: false)
        return try Self.cannedSave(result)
    }

    /// Changes the shortcut, the body or both (nil: kept).
    public func changeCannedReply(
        id: String, workspaceID: String, shortcut: String?, body: String?
    ) throws(QueryError) -> CannedReplySave {
        let result = try run(
            """
            WITH c AS (
                UPDATE canned_replies c SET shortcut = coalesce($3, c.shortcut), body = coalesce($4, c.body)
                 WHERE c.id = $1::uuid AND c.workspace_id = $2::uuid
                   AND NOT EXISTS (SELECT 1 FROM canned_replies o
                                    WHERE o.workspace_id = $2::uuid AND o.shortcut = $3 AND o.id <> $1::uuid)
                RETURNING *
            )
            SELECT 'saved', \(Self.cannedColumns) FROM c
            UNION ALL
            SELECT CASE WHEN EXISTS (SELECT 1 FROM canned_replies o WHERE o.id = $1::uuid AND o.workspace_id = $2::uuid)
                        THEN 'taken' ELSE 'missing' END,
                   NULL, NULL, NULL, NULL, NULL, NULL
             WHERE NOT EXISTS (SELECT 1 FROM c)
            """, [id, workspaceID, shortcut, body], retryable: true)
        return try Self.cannedSave(result)
    }

    /// False: no such reply in the workspace.
    public func deleteCannedReply(id: String, workspaceID: String) throws(QueryError) -> Bool {
        let result = try run(
            "DELETE FROM canned_replies WHERE id = $1::uuid AND workspace_id = $2::uuid RETURNING id",
            [id, workspaceID], retryable: true)
        return result.rowCount == 1
    }

    static let cannedColumns = """
        c.id::text, c.shortcut, c.body, c.created_by, \(RowDecoding.timestamp("c.created_at")),
        \(RowDecoding.timestamp("c.updated_at"))
        """

    private static func cannedSave(_ result: PostgresResult) throws(QueryError) -> CannedReplySave {
        guard result.rowCount == 1 else { throw .failed("a canned reply's save answered \(result.rowCount) rows") }
        switch result.string(0, 0) {
        case "saved": return .saved(try cannedReply(result, 0, from: 1))
        case "taken": return .shortcutTaken
        case "full": return .full
        default: return .notFound
        }
    }

    private static func cannedReply(
        _ result: PostgresResult, _ row: Int, from first: Int = 0
    ) throws(QueryError)
        -> CannedReply
    {
        CannedReply(
            id: try RowDecoding.required(result, row, first),
            shortcut: try RowDecoding.required(result, row, first + 1),
            body: try RowDecoding.required(result, row, first + 2),
            createdBy: try RowDecoding.required(result, row, first + 3),
            createdAt: try RowDecoding.required(result, row, first + 4),
            updatedAt: try RowDecoding.required(result, row, first + 5))
    }
}
