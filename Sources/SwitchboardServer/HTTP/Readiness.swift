import Logging
import SwitchboardChat
import SwitchboardReaders
import SwitchboardStore

/// `GET /readyz`: the database answers and its schema is the one this build expects.
enum Readiness {
    static func check(logger: Logger) -> HTTPAnswer {
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
                return .json(.ok, #"{"status":"ready","schema_version":\#(version)}"#)
            } catch {
                // The detail goes to the log, not to this unauthenticated endpoint.
                logger.warning("readiness check failed: \(error)")
                return .api(ChatError(error))
            }
        }
    }
}
