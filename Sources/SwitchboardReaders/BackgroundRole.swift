/// The gateway's background workers that query PostgreSQL on connections of
/// their own, each under its own application_name (`switchboard-` and the
/// raw value), so that an operator, and the benchmarks, can tell what each
/// one costs the database apart from the reader pool's requests.
public enum BackgroundRole: String, Sendable, CaseIterable {
    case webhookDispatcher = "switchboard-webhook-dispatcher"
    case webhookExpander = "switchboard-webhook-expander"
    case webhookSampler = "switchboard-webhook-sampler"
    case searchIndexer = "switchboard-search-indexer"

    /// Settings of the role's connections beyond the readers' own.
    ///
    /// The sampler counts every pending delivery, and its pause after a
    /// sample is 20 times the sample's wall time, which bounds it to a
    /// twenty-first of one core only while one process runs the count: over
    /// a million pending deliveries PostgreSQL ran it as a parallel query, a
    /// leader and two workers, 273-315 ms of CPU in 128-162 ms of wall time
    /// (215-223 ms of CPU in one process): about twice that bound.
    /// Without JIT for the same reason as the bench's own sampler: past
    /// `jit_above_cost` (a few million pending) each count would be compiled
    /// anew, 70-190 ms of a core for a statement that runs every few seconds.
    var sessionSettings: [String] {
        switch self {
        case .webhookSampler: ["SET max_parallel_workers_per_gather = 0", "SET jit = off"]
        case .webhookDispatcher, .webhookExpander, .searchIndexer: []
        }
    }
}
