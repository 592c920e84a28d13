import SwitchboardTestSupport
import SwitchboardWriter
import Testing

@Suite struct InvalidInputTests {
    @Test func refusesWhatPostgreSQLCannotHoldAtSubmit() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        let writer = try startedWriter(WriterConfiguration(databaseURL: db.url), collector)
        defer { writer.stop() }

        func isInvalid(_ outcome: SubmitOutcome) -> Bool {
            if case .invalid = outcome { return true }
            return false
        }
        #expect(isInvalid(writer.submit(command(session: session, clientID: "a", token: 1, body: "nul \u{0} here"))))
        #expect(isInvalid(writer.submit(command(session: session, clientID: "b\u{0}", token: 2))))
        var named = command(session: session, clientID: "c", token: 3)
        named.senderName = "A\u{0}nn"
        #expect(isInvalid(writer.submit(named)))
        for bad in [
            "not-a-uuid", "", session + "0", String(session.dropLast()),
            session.replacingOccurrences(of: "-", with: "x"),
        ] {
            #expect(isInvalid(writer.submit(command(session: bad, clientID: "d", token: 4))), "\(bad)")
        }

        // A good message in the same moment is unaffected; an unknown session is answered alone.
        let unknown = "00000000-0000-4000-8000-000000000000"
        #expect(
            writer.submit(command(session: session, clientID: "good", token: 10, body: "quote \" slash \\ {,}"))
                == .accepted)
        #expect(writer.submit(command(session: unknown, clientID: "lost", token: 11)) == .accepted)
        #expect(writer.submit(command(session: session.uppercased(), clientID: "upper", token: 12)) == .accepted)
        _ = try collector.wait(for: 3)
        let results = try collector.byToken()
        #expect(results[10]?.outcome.message?.body == "quote \" slash \\ {,}")
        #expect(results[10]?.outcome.message?.seq == 1)
        #expect(results[11]?.outcome == .noSession)
        #expect(results[12]?.outcome.message?.seq == 2)
        #expect(writer.statistics.noSession == 1)
        let stored = try db.connect().query("SELECT content, sender_name FROM chats WHERE client_msg_id = 'good'")
        #expect(stored.string(0, 0) == "quote \" slash \\ {,}")
        #expect(stored.string(0, 1) == "Ann")
    }

    @Test func aMissingSenderNameIsStoredAsNull() throws {
        let db = try TestDatabase(migrated: true)
        defer { db.drop() }
        let session = try makeSessions(db, count: 1)[0]
        let collector = ResultCollector()
        let writer = try startedWriter(WriterConfiguration(databaseURL: db.url), collector)
        defer { writer.stop() }

        var anonymous = command(session: session, clientID: "anon", token: 1, body: "")
        anonymous.senderName = nil
        var literal = command(session: session, clientID: "null-name", token: 2, body: "NULL")
        literal.senderName = "NULL"
        #expect(writer.submit(anonymous) == .accepted)
        #expect(writer.submit(literal) == .accepted)
        _ = try collector.wait(for: 2)
        let rows = try db.connect().query("SELECT sender_name, content FROM chats ORDER BY seq")
        #expect(rows.rows == [[nil, ""], ["NULL", "NULL"]])
    }
}
