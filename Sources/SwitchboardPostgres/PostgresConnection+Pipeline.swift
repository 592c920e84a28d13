import CLibPQ

/// libpq pipeline mode: send several statements without waiting, each
/// followed by a sync so that it commits on its own, and collect the results
/// in order. Lets the batched writer keep the next batch on the wire while the
/// server commits the previous one.
extension PostgresConnection {
    public enum PipelineEvent {
        /// A statement's result.
        case result(PostgresResult)
        /// A statement failed; the rest up to the next sync is skipped by the server.
        case failure(PostgresError)
        /// The end of the statements before a sync.
        case sync
    }

    public func enterPipelineMode() throws(PostgresError) {
        guard PQenterPipelineMode(connection) == 1, PQsetnonblocking(connection, 1) == 0 else {
            throw PostgresError(kind: .connection, message: Self.trimmed(PQerrorMessage(connection)))
        }
    }

    public func exitPipelineMode() throws(PostgresError) {
        guard PQsetnonblocking(connection, 0) == 0, PQexitPipelineMode(connection) == 1 else {
            throw PostgresError(kind: .query, message: Self.trimmed(PQerrorMessage(connection)))
        }
    }

    /// Queues one statement with text parameters, then a sync (its own transaction).
    public func sendStatement(_ sql: String, _ parameters: [String?]) throws(PostgresError) {
        let sent = Self.withCStrings(parameters) { values in
            PQsendQueryParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        try syncQueued(sent)
    }

    /// Queues one execution of a statement prepared on this connection
    /// (`prepare`), with text parameters, then a sync (its own transaction).
    /// The server neither parses nor plans it again: on a hot path that sends
    /// small statements often, that is most of the fixed cost of each one.
    public func sendPrepared(_ name: String, _ parameters: [String?]) throws(PostgresError) {
        let sent = Self.withCStrings(parameters) { values in
            PQsendQueryPrepared(connection, name, Int32(parameters.count), values, nil, nil, 0)
        }
        try syncQueued(sent)
    }

    /// `sendPrepared` with every parameter in binary format (arrays that the
    /// server copies instead of parsing; `PostgresBinaryParameters`).
    public func sendPrepared(_ name: String, _ parameters: borrowing PostgresBinaryParameters) throws(PostgresError) {
        let sent = parameters.withParameterPointers { values, lengths, formats in
            PQsendQueryPrepared(connection, name, Int32(values.count), values, lengths, formats, 0)
        }
        try syncQueued(sent)
    }

    /// Ends a statement just queued (`sent`: what libpq's send call returned)
    /// with a sync, which makes it a transaction of its own.
    private func syncQueued(_ sent: Int32) throws(PostgresError) {
        guard sent == 1, PQpipelineSync(connection) == 1 else {
            throw PostgresError(kind: .connection, message: Self.trimmed(PQerrorMessage(connection)))
        }
    }

    /// Pushes queued bytes to the server; true when everything was sent.
    public func flush() throws(PostgresError) -> Bool {
        switch PQflush(connection) {
        case 0: return true
        case 1: return false
        default: throw PostgresError(kind: .connection, message: Self.trimmed(PQerrorMessage(connection)))
        }
    }

    /// Reads what the server sent without blocking.
    public func consumeInput() throws(PostgresError) {
        guard PQconsumeInput(connection) == 1 else {
            throw PostgresError(kind: .connection, message: Self.trimmed(PQerrorMessage(connection)))
        }
    }

    /// The next pipeline event if it has fully arrived, else nil (call
    /// `consumeInput` after the socket becomes readable).
    public func nextPipelineEvent() -> PipelineEvent? {
        // Each statement's results end with a NULL; a second NULL in a row
        // means nothing more is queued.
        var sawSeparator = false
        while PQisBusy(connection) == 0 {
            guard let raw = PQgetResult(connection) else {
                if sawSeparator { return nil }
                sawSeparator = true
                continue
            }
            return event(for: raw)
        }
        return nil
    }

    private func event(for raw: OpaquePointer) -> PipelineEvent {
        switch PQresultStatus(raw) {
        case PGRES_PIPELINE_SYNC:
            PQclear(raw)
            return .sync
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return .result(PostgresResult(raw))
        case PGRES_PIPELINE_ABORTED:
            PQclear(raw)
            return .failure(PostgresError(kind: .query, message: "skipped after an earlier failure in the pipeline"))
        default:
            let error = error(from: raw)
            PQclear(raw)
            return .failure(error)
        }
    }
}
