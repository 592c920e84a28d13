import SwitchboardJSON

/// `loadtest seed-sessions WS_URL VISITOR_TOKEN [COUNT]`: real sessions for API tests.
public enum SeedSessionsDriver {
    static let help = """
        usage: loadtest seed-sessions WS_URL VISITOR_TOKEN [COUNT]

        Creates COUNT sessions (default 3), each with three messages, as one visitor
        over the chat protocol, so API tests and fuzzers (scripts/api-fuzz) reach real
        sessions. Prints each session's id. Fails when the gateway refuses a step.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        if DriverOutput.help(arguments, help) { return 0 }
        guard arguments.count == 2 || arguments.count == 3, let count = Int(arguments.count == 3 ? arguments[2] : "3")
        else { return DriverOutput.usage("seed-sessions", "WS_URL VISITOR_TOKEN [COUNT] (--help)") }
        return DriverOutput.failing("seed-sessions") {
            try seed(url: arguments[0], token: arguments[1], count: count) { print($0) }
        }
    }

    /// Creates the sessions, reporting each id as it is made.
    public static func seed(
        url: String, token: String, count: Int, created: (String) -> Void
    )
        throws(ScriptedConnections.Failure)
    {
        let connections = try ScriptedConnections(url: url, timeout: 30)
        let visitor = try connections.greeted(token: token)
        defer { visitor.close() }
        /// Sends `request` and returns the answer carrying its ref (other frames are skipped).
        func answer(_ request: JSONObject) throws(ScriptedConnections.Failure) -> JSONValue {
            visitor.send(PythonFormat.json(.object(request)))
            while true {
                let reply = frame(try connections.next(visitor))
                if reply["ref"] == request["ref"] { return reply }
            }
        }
        for n in 0..<count {
            let session = try answer(["type": "session.create", "ref": .string("c\(n)"), "title": .string("Seed \(n)")])
            guard session.string("type") == "session", let id = session["session"]?.string("id") else {
                throw .init(description: "session.create refused: \(PythonFormat.str(session))")
            }
            for m in 0..<3 {
                let ack = try answer([
                    "type": "send", "ref": .string("m\(n)-\(m)"), "session_id": .string(id),
                    "client_msg_id": .string("seed-\(n)-\(m)"), "body": .string("message \(m)"),
                ])
                guard ack.string("type") == "ack" else {
                    throw .init(description: "send refused: \(PythonFormat.str(ack))")
                }
            }
            created(id)
        }
    }

    static func frame(_ text: String) -> JSONValue {
        (try? JSONParser.parse(text, limits: .reports)) ?? .null
    }
}
