import SwitchboardPostgres

extension ChatQueries {
    /// A workspace's figures over [from, to). `from` and `to` are RFC 3339 texts, read by PostgreSQL's
    /// timestamptz input; one it refuses throws `QueryError.failed`.
    ///
    /// One statement, every figure computed by the server. Its first row is
    /// the summary (role NULL): sessions opened and closed, and the first
    /// response times of the sessions opened in the window (percentile_cont
    /// over seconds, so the median of an even count interpolates). Each further
    /// row is one sender role and its message count.
    public func analytics(workspaceID: String, from: String, to: String) throws(QueryError) -> Analytics {
        let result = try run(
            """
            WITH live AS (
                SELECT s.id, s.created_at, s.closed_at, s.first_visitor_message_at, s.first_operator_reply_at,
                       s.first_assigned_at
                  FROM chat_sessions s
                 WHERE s.workspace_id = $1::uuid AND s.deleted_at IS NULL
            ),
            opened AS (
                SELECT * FROM live WHERE created_at >= $2::timestamptz AND created_at < $3::timestamptz
            ),
            responses AS (
                SELECT extract(epoch FROM first_operator_reply_at - first_visitor_message_at)::float8 AS seconds
                  FROM opened
                 WHERE first_visitor_message_at IS NOT NULL AND first_operator_reply_at IS NOT NULL
            ),
            -- The first wait: both stamps are set once per session. waiting_since would not do: a
            -- visitor's reopen resets it, so it may follow the first assignment. Assigned before the
            -- visitor wrote: no wait.
            waits AS (
                SELECT greatest(extract(epoch FROM first_assigned_at - first_visitor_message_at)::float8, 0) AS seconds
                  FROM opened
                 WHERE first_visitor_message_at IS NOT NULL AND first_assigned_at IS NOT NULL
            ),
            summary AS (
                SELECT NULL::text AS role, NULL::bigint AS messages,
                       (SELECT count(*) FROM opened) AS opened,
                       (SELECT count(*) FROM live
                         WHERE closed_at >= $2::timestamptz AND closed_at < $3::timestamptz) AS closed,
                       count(*) AS responses,
                       percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS median,
                       percentile_cont(0.9) WITHIN GROUP (ORDER BY seconds) AS p90,
                       (SELECT count(*) FROM waits) AS waits,
                       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM waits) AS wait_median,
                       (SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY seconds) FROM waits) AS wait_p90,
                       -- A visitor wrote and no operator ever did.
                       (SELECT count(*) FROM live
                         WHERE closed_at >= $2::timestamptz AND closed_at < $3::timestamptz
                           AND first_visitor_message_at IS NOT NULL AND first_operator_reply_at IS NULL) AS unanswered
                  FROM responses
            ),
            roles AS (
                SELECT c.role, count(*) AS messages
                  FROM chats c JOIN live l ON l.id = c.session_id
                 WHERE c.created_at >= $2::timestamptz AND c.created_at < $3::timestamptz
                   -- System lines are not messages anybody wrote.
                   AND c.kind <> 'event'
                 GROUP BY c.role
            )
            SELECT 0 AS part, role, messages, opened, closed, responses, median, p90, waits, wait_median, wait_p90,
                   unanswered
              FROM summary
            UNION ALL
            SELECT 1, role, messages, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL FROM roles
            ORDER BY part, role
            """, [workspaceID, from, to], retryable: true)
        guard result.rowCount >= 1, result.isNull(0, 1) else {
            throw .failed("analytics returned no summary row")
        }
        var messagesByRole: [String: Int] = [:]
        for row in 1..<result.rowCount {
            messagesByRole[try RowDecoding.required(result, row, 1)] = Int(try RowDecoding.int64(result, row, 2))
        }
        var figures = Analytics(
            sessionsOpened: Int(try RowDecoding.int64(result, 0, 3)),
            sessionsClosed: Int(try RowDecoding.int64(result, 0, 4)), messagesByRole: messagesByRole,
            firstResponseCount: Int(try RowDecoding.int64(result, 0, 5)),
            firstResponseMedianSeconds: try RowDecoding.double(result, 0, 6),
            firstResponseP90Seconds: try RowDecoding.double(result, 0, 7),
            waitCount: Int(try RowDecoding.int64(result, 0, 8)),
            waitMedianSeconds: try RowDecoding.double(result, 0, 9),
            waitP90Seconds: try RowDecoding.double(result, 0, 10), unanswered: Int(try RowDecoding.int64(result, 0, 11))
        )
        figures.csat = try csatFigures(workspaceID: workspaceID, from: from, to: to)
        return figures
    }

    /// The ratings given in [from, to), by rating and by the operator the session was assigned to then.
    private func csatFigures(workspaceID: String, from: String, to: String) throws(QueryError) -> CsatFigures {
        let result = try run(
            """
            SELECT (s.csat->>'rating')::int, coalesce(s.assigned_operator_id, ''), count(*)
              FROM chat_sessions s
             WHERE s.workspace_id = $1::uuid AND s.deleted_at IS NULL AND s.csat IS NOT NULL
               AND (s.csat->>'created_at')::timestamptz >= $2::timestamptz
               AND (s.csat->>'created_at')::timestamptz < $3::timestamptz
             GROUP BY 1, 2
            """, [workspaceID, from, to], retryable: true)
        var figures = CsatFigures()
        for row in 0..<result.rowCount {
            figures.add(
                rating: Int(try RowDecoding.int64(result, row, 0)),
                operatorID: try RowDecoding.required(result, row, 1),
                count: Int(try RowDecoding.int64(result, row, 2)))
        }
        return figures
    }
}
