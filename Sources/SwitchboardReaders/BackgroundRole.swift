/// The gateway's background workers that query PostgreSQL on connections of
/// their own, each under its own application_name (`switchboard-` and the
/// raw value), so that an operator, and the benchmarks, can tell what each
/// one costs the database apart from the reader pool's requests.
public enum BackgroundRole: String, Sendable, CaseIterable {
    case webhookDispatcher = "switchboard-webhook-dispatcher"
    case webhookExpander = "switchboard-webhook-expander"
    case webhookSampler = "switchboard-webhook-sampler"
    case searchIndexer = "switchboard-search-indexer"
}
