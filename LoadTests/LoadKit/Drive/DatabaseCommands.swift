/// What a driver asks of PostgreSQL and of the gateway's binary around a
/// measurement, through the same programs the scripts use (psql, `switchboard
/// migrate`), so what a run does to the database is what a person would type.
public enum DatabaseCommands {
    /// `psql -X -q -t -A URL -c STATEMENT`: the result unaligned, without headers.
    public static func psql(_ databaseURL: String, _ statement: String) throws(DriveError) -> CapturedCommand {
        try CapturedCommand.run(["psql", "-X", "-q", "-t", "-A", databaseURL, "-c", statement])
    }

    /// Vacuumed and checkpointed before a measurement: otherwise autovacuum
    /// and checkpoints of the rows earlier runs left land at random moments
    /// inside later runs. Then a second's pause.
    public static func settle(_ databaseURL: String) throws(DriveError) {
        for statement in ["VACUUM (ANALYZE) chats, chat_sessions", "CHECKPOINT"] {
            try CapturedCommand.check(["psql", "-X", "-q", databaseURL, "-c", statement])
        }
        DriveClock.sleep(seconds: 1)
    }

    /// `switchboard migrate up`: the schema the gateway expects.
    public static func migrate(binDirectory: String, databaseURL: String) throws(DriveError) {
        try CapturedCommand.check([
            TextFile.join(binDirectory, "switchboard"), "migrate", "up", "--database-url", databaseURL,
        ])
    }
}
