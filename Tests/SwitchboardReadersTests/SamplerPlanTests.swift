import Testing

@testable import SwitchboardReaders

/// The outbox sampler's count over every pending delivery runs in one
/// process and is never compiled, whatever the planner would make of a large
/// outbox: its pause after a sample (20 times the sample's wall time) bounds
/// its share of one core only then.
@Suite struct SamplerPlanTests {
    /// The plan of the gauges' statement on `queries`' connection, with
    /// parallel plans and JIT made as cheap as can be, so that any connection
    /// allowed either gets it for 20,000 pending deliveries.
    private func plan(_ queries: ChatQueries) throws -> String {
        for setting in [
            "SET parallel_setup_cost = 0", "SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0",
            "SET jit_above_cost = 0",
        ] {
            _ = try queries.run(setting, [], retryable: false)
        }
        let result = try queries.run("EXPLAIN " + ChatQueries.outboxGaugesStatement, [], retryable: true)
        return (0..<result.rowCount).compactMap { result.string($0, 0) }.joined(separator: "\n")
    }

    @Test func theOutboxCountRunsInOneProcessWithoutJIT() throws {
        let fixture = try ReadersFixture()
        defer { fixture.drop() }
        try fixture.admin.execute(
            """
            INSERT INTO webhook_deliveries (endpoint_id, workspace_id, event_id, next_attempt_at)
            SELECT gen_random_uuid(), gen_random_uuid(), 'evt_' || g, now() FROM generate_series(1, 20000) g;
            ANALYZE webhook_deliveries
            """)
        // The control: a reader's connection gets both, so the check below can fail.
        let readers = try plan(fixture.queries)
        #expect(readers.contains("Gather") && readers.contains("JIT:"), "\(readers)")
        let sampler = try plan(ChatQueries(databaseURL: fixture.database.url, role: .webhookSampler))
        #expect(!sampler.contains("Gather") && !sampler.contains("JIT:"), "\(sampler)")
    }
}
