import Foundation
import SwitchboardPostgres
import SwitchboardStore

/// Small query helpers shared by the store tests.
extension PostgresConnection {
    func count(_ sql: String, _ parameters: [String?] = []) throws -> Int {
        try query(sql, parameters).int(0, 0) ?? -1
    }

    /// The first column of every row.
    func column(_ sql: String, _ parameters: [String?] = []) throws -> [String?] {
        try query(sql, parameters).rows.map { $0.first ?? nil }
    }

    func exists(_ relation: String) throws -> Bool {
        try query("SELECT to_regclass($1) IS NOT NULL", [relation]).bool(0, 0) == true
    }

    func appliedVersions() throws -> [Int] {
        try column("SELECT version FROM schema_migrations ORDER BY version").compactMap { $0.flatMap { Int($0) } }
    }

    /// schema_migrations as it is, applied_at included (to prove a re-run changes nothing).
    func historyRows() throws -> [[String?]] {
        try query("SELECT version, name, checksum, applied_at::text FROM schema_migrations ORDER BY version").rows
    }
}

func newUUID() -> String { UUID().uuidString.lowercased() }

/// `Migrations.all` with one migration's SQL changed (same version and name).
func migrations(editing version: Int) -> [Migration] {
    Migrations.all.map { migration in
        guard migration.version == version else { return migration }
        return Migration(
            version: migration.version, name: migration.name, sql: migration.sql + "\n-- edited after release\n",
            down: migration.down)
    }
}

/// The first `count` migrations of this build (an older build).
func migrations(upTo version: Int) -> [Migration] {
    Migrations.all.filter { $0.version <= version }
}

/// This build's newest migration, and a version no build knows yet.
let latest = Migrations.latestVersion
let future = latest + 1
