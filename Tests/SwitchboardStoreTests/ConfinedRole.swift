import SwitchboardPostgres
import SwitchboardTestSupport
import Testing

/// A migrated database and a login role that is not its owner, for the
/// row-level security tests: the owner's connection sets up and grants, the
/// role's connections are confined. `drop()` removes both, the database
/// first (its grants to the role go with it).
struct ConfinedRole {
    let database: TestDatabase
    let name: String
    let owner: PostgresConnection
    private let admin: PostgresConnection

    init(prefix: String) throws {
        database = try TestDatabase(migrated: true)
        admin = try PostgresConnection(TestDatabase.adminURL())
        owner = try database.connect()
        name = prefix + newUUID().replacingOccurrences(of: "-", with: "").prefix(12)
        try admin.execute("CREATE ROLE \(name) LOGIN")
    }

    /// A new connection as the role (the database's URL with its user replaced).
    func connect() throws -> PostgresConnection {
        let url = database.url
        let scheme = try #require(url.range(of: "://"))
        let at = try #require(url[scheme.upperBound...].firstIndex(of: "@"))
        return try PostgresConnection(String(url[..<scheme.upperBound]) + name + String(url[at...]))
    }

    func drop() {
        database.drop()
        _ = try? admin.execute("DROP ROLE IF EXISTS \(name)")
    }
}

extension PostgresConnection {
    /// Says whom the connection acts for, as another application would
    /// (docs/database.md, "Row-level security"); nil clears a setting.
    func actFor(workspace: String?, role: String?, user: String? = nil) throws {
        for (name, value) in [
            ("switchboard.workspace_id", workspace), ("switchboard.role", role), ("switchboard.user_id", user),
        ] {
            try query("SELECT set_config($1, $2, false)", [name, value ?? ""])
        }
    }
}
