import SwitchboardJSON

/// `loadtest transcript WS_URL VISITOR_TOKEN OPERATOR_TOKEN`: the conversation of
/// docs/protocol.md ("Example conversation"), every frame printed in order.
public enum TranscriptDriver {
    static let help = """
        usage: loadtest transcript WS_URL VISITOR_TOKEN OPERATOR_TOKEN

        Plays a short conversation between a visitor and an operator against a
        running gateway (hello, inbox, presence, session, join, send, assign,
        typing, reply, read, contact, a retried send, close) and prints every frame in order: `>>` sent,
        `<<` received, each line led by who sent or read it.
        """

    public static func main(_ arguments: [String]) -> Int32 {
        if DriverOutput.help(arguments, help) { return 0 }
        guard arguments.count == 3 else {
            return DriverOutput.usage("transcript", "WS_URL VISITOR_TOKEN OPERATOR_TOKEN (--help)")
        }
        var lines: [String] = []
        let status = DriverOutput.failing("transcript") {
            try play(url: arguments[0], visitorToken: arguments[1], operatorToken: arguments[2]) { lines.append($0) }
        }
        if status == 0 {
            print(lines.joined(separator: "\n"))
        } else {
            DriverOutput.standardError("frames so far:\n" + lines.joined(separator: "\n"))
        }
        return status
    }

    /// Plays the conversation; `line` gets each frame as the transcript shows it.
    public static func play(
        url: String, visitorToken: String, operatorToken: String, line: (String) -> Void
    )
        throws(ScriptedConnections.Failure)
    {
        let connections = try ScriptedConnections(url: url, timeout: 10)
        // Each line is led by who sent or read the frame.
        let visitor = try connections.greeted(
            token: visitorToken, sent: { line("visitor  >> \($0)") }, received: { line("visitor  << \($0)") })
        let operator_ = try connections.greeted(
            token: operatorToken, sent: { line("operator >> \($0)") }, received: { line("operator << \($0)") })
        defer {
            operator_.close()
            visitor.close()
        }
        let names = [ObjectIdentifier(visitor): "visitor ", ObjectIdentifier(operator_): "operator"]
        func send(_ who: ScriptedConnections.Connection, _ frame: JSONValue) {
            let text = PythonFormat.json(frame, compact: true)
            line("\(names[ObjectIdentifier(who)]!) >> \(text)")
            who.send(text)
        }
        /// Reads until a frame of type `kind` (whose session has `status`, when given); returns it.
        @discardableResult
        func until(
            _ who: ScriptedConnections.Connection, _ kind: String, status: String? = nil
        ) throws(ScriptedConnections.Failure)
            -> JSONValue
        {
            while true {
                let text = try connections.next(who)
                line("\(names[ObjectIdentifier(who)]!) << \(text)")
                let frame = (try? JSONParser.parse(text, limits: .reports)) ?? .null
                guard frame.string("type") == kind else { continue }
                if status == nil || frame["session"]?.string("status") == status { return frame }
            }
        }
        send(operator_, ["type": "inbox.subscribe", "ref": "o1"])
        try until(operator_, "inbox")
        send(operator_, ["type": "presence.subscribe", "ref": "o5"])
        try until(operator_, "presence.list")
        send(visitor, ["type": "session.create", "ref": "v1", "title": "Order question"])
        guard let id = try until(visitor, "session")["session"]?.string("id") else {
            throw .init(description: "the session frame has no session id")
        }
        let session = JSONValue.string(id)
        try until(operator_, "session.updated")
        send(operator_, ["type": "join", "ref": "o2", "session_id": session, "since_seq": 0])
        try until(operator_, "joined")
        let question: JSONValue = [
            "type": "send", "ref": "v2", "session_id": session, "client_msg_id": "5d6c0b1e",
            "body": "Hello, where is my order?",
        ]
        send(visitor, question)
        try until(visitor, "message")
        try until(operator_, "message")
        send(operator_, ["type": "session.assign", "ref": "o3", "session_id": session])
        try until(operator_, "session.updated")
        try until(visitor, "session.updated")
        send(operator_, ["type": "typing", "session_id": session, "state": true])
        try until(visitor, "typing")
        send(
            operator_,
            [
                "type": "send", "ref": "o4", "session_id": session, "client_msg_id": "9a8b7c6d",
                "body": "It ships today.",
            ])
        try until(operator_, "message")
        try until(visitor, "message")
        send(visitor, ["type": "read", "session_id": session, "seq": 2])
        try until(operator_, "read")
        send(
            visitor,
            ["type": "session.contact", "ref": "v5", "session_id": session, "email": "ann@example.com"])
        try until(visitor, "session.updated")
        try until(operator_, "session.updated")
        var retried = question.objectValue!
        retried["ref"] = "v3"
        send(visitor, .object(retried))
        try until(visitor, "ack")
        send(visitor, ["type": "session.close", "ref": "v4", "session_id": session])
        try until(visitor, "session.updated")
        try until(operator_, "session.updated", status: "closed")
    }
}
