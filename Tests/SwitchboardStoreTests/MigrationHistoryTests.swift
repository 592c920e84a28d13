import SwitchboardStore
import Testing

/// The divergence rules, without a database.
@Suite struct MigrationHistoryTests {
    private func applied(_ migration: Migration, checksum: String? = nil) -> AppliedMigration {
        AppliedMigration(
            version: migration.version, name: migration.name, checksum: checksum ?? migration.checksum,
            appliedAt: "2026-01-20T10:00:00Z")
    }

    @Test func checksumIsHexSHA256OfTheSQL() {
        let migration = Migration(version: 1, name: "abc", sql: "abc", down: "")
        #expect(migration.checksum == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    /// Databases in the field recorded these: a released migration's SQL
    /// never changes (a later version changes the schema), or every such
    /// database would refuse this build as diverged.
    @Test func releasedMigrationsKeepTheirChecksums() {
        let released = [
            "5b82bb81f013b7ce5e2a3e30da0b34103857ff785362cabdf1999d1fb9ab51eb",
            "3ffb259e00d3415e357a7465165fd65aa20892a8f2a820c9bc6707d1b76d1588",
            "e2c65ea96510820337cf8dd85c202acded410ac794b872c040e67ab152e6a64a",
            "b920ebc273e8e487dfc4f7025ff425bc7964afde2dbabdac3083c68d4a0119a8",
            "eecf1c06b17c9c1cad1f457d23d69ade3fa6944b59b05c3818c583622434dddc",
            "389c3ff8e24acd1bf2edb200c542cea566b9a22109f5279d8301e18bd618e73e",
            "b209d2d02f3a5e6ff78b09c8f67aa3d49154e8210857975933197dd4dce2af6f",
        ]
        #expect(Array(Migrations.all.prefix(released.count).map(\.checksum)) == released)
    }

    @Test func matchingHistoryHasNoDivergenceAndListsPending() {
        let history = MigrationHistory(known: Migrations.all, recorded: Migrations.all.prefix(3).map { applied($0) })
        #expect(history.divergences.isEmpty)
        #expect(history.currentVersion == 3)
        #expect(history.pending.map(\.version) == Array(4...latest))
        let status = MigrationStatus(history: history)
        #expect(
            status.entries.map(\.state)
                == Array(repeating: .applied(at: "2026-01-20T10:00:00Z"), count: 3)
                + Array(repeating: .pending, count: latest - 3))
        #expect(!status.isUpToDate)
    }

    @Test func unknownVersionAboveTheLatestIsNewerThanTheBinary() {
        let newer = AppliedMigration(version: future, name: "future_thing", checksum: "x", appliedAt: "t")
        let history = MigrationHistory(known: Migrations.all, recorded: Migrations.all.map { applied($0) } + [newer])
        #expect(history.divergences == [.unknown(version: future, name: "future_thing", newer: true)])
        #expect(
            history.divergences[0].description
                == "database has migration \(future) (future_thing) which this build does not know: "
                + "the database is newer than this binary")
        #expect(MigrationStatus(history: history).entries.last?.state == .unknown(appliedAt: "t"))
    }

    @Test func editedChecksumNamesBothChecksums() {
        var recorded = Migrations.all.map { applied($0) }
        recorded[2] = applied(Migrations.all[2], checksum: "abc123")
        let history = MigrationHistory(known: Migrations.all, recorded: recorded)
        let current = Migrations.all[2].checksum
        #expect(
            history.divergences == [
                .edited(version: 3, name: "add_session_id_to_chats", recorded: "abc123", current: current)
            ])
        #expect(
            history.divergences[0].description
                == "migration 3 add_session_id_to_chats was edited after it was applied: "
                + "recorded checksum abc123, this build \(current)")
    }

    @Test func missingEarlierVersionIsAGap() {
        let recorded = Migrations.all.filter { $0.version != 2 }.map { applied($0) }
        let history = MigrationHistory(known: Migrations.all, recorded: recorded)
        #expect(history.divergences == [.gap(version: 2, name: "create_chat_sessions", later: 3)])
        #expect(history.divergences[0].description.contains("the history has a gap"))
    }

    @Test func runnerRejectsAListThatIsNotOneIncreasingHistory() throws {
        let twice = [Migrations.all[0], Migrations.all[0]]
        let error = #expect(throws: MigrationError.self) {
            try MigrationRunner(url: "postgresql://nobody@127.0.0.1:1/none", migrations: twice)
        }
        // The list is checked before connecting, so the message is about the list.
        #expect(error?.description.contains("invalid migration list") == true)
    }
}
