import Logging
import SwitchboardChat
import SwitchboardJSON
import SwitchboardReaders
import SwitchboardStore

/// `GET /readyz`: the database answers and its schema is the one this build
/// expects; the body also names this node and says how its cluster bus is
/// (a bus that is down or catching up does not make the node unready: its
/// clients are served from the database meanwhile).
enum Readiness {
    static func check(cluster: ClusterLink, logger: Logger) -> HTTPAnswer {
        let node = cluster.nodeID
        let bus = cluster.bus
        let expected = Migrations.all.last?.version ?? 0
        return .later { queries in
            do throws(QueryError) {
                guard let version = try queries.appliedSchemaVersion() else {
                    return .api(ChatError(.unavailable, "the database has no schema; run switchboard migrate up"))
                }
                guard version == expected else {
                    return .api(
                        ChatError(
                            .unavailable, "the database schema is at version \(version); this build expects \(expected)"
                        ))
                }
                var body = JSONWriter()
                body.beginObject()
                body.key("status")
                body.string("ready")
                body.key("schema_version")
                body.int(version)
                body.key("node_id")
                body.string(node)
                body.key("bus")
                body.string(bus.name)
                body.key("bus_state")
                body.string(bus.state.rawValue)
                body.endObject()
                return .json(.ok, String(decoding: body.bytes, as: UTF8.self))
            } catch {
                // The detail goes to the log, not to this unauthenticated endpoint.
                logger.warning("readiness check failed: \(error)")
                return .api(ChatError(error))
            }
        }
    }
}
