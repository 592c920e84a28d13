import Testing

@testable import LoadKit

@Suite("LoadOptions")
struct LoadOptionsTests {
    @Test("the URL gives host, port and path; the secret and database fall back to the gateway's variables")
    func parsesAndFallsBack() throws {
        let options = try LoadOptions(
            arguments: ["fanout", "--url", "ws://localhost:9001/v1/ws", "--subscribers", "7", "--rate", "2.5e3"],
            environment: ["SWITCHBOARD_JWT_SECRET": "s", "SWITCHBOARD_DATABASE_URL": "postgresql://db"])
        #expect(options.scenario == "fanout")
        #expect(options.host == "127.0.0.1" && options.port == 9001 && options.path == "/v1/ws")
        #expect(options.subscribers == 7 && options.rate == 2500)
        #expect(options.jwtSecret == "s" && options.databaseURL == "postgresql://db")

        let explicit = try LoadOptions(
            arguments: ["idle", "--jwt-secret", "mine"], environment: ["SWITCHBOARD_JWT_SECRET": "theirs"])
        #expect(explicit.jwtSecret == "mine")
    }

    @Test("routing: operators, visitors, capacity, hold, away turns and the backlog switch")
    func routingOptions() throws {
        let options = try LoadOptions(
            arguments: [
                "routing", "--jwt-secret", "s", "--operators", "50", "--sessions", "2000", "--rate", "100", "--backlog",
                "--capacity", "40", "--hold", "1.5", "--away-for", "2", "--away-every", "10",
            ])
        #expect(options.operators == 50 && options.sessions == 2000 && options.rate == 100)
        #expect(options.backlog && options.capacity == 40 && options.holdSeconds == 1.5)
        #expect(options.awaySeconds == 2 && options.awayEverySeconds == 10)
        let shown = Dictionary(uniqueKeysWithValues: options.displayed.map { ($0.name, $0.value) })
        #expect(shown["visitors"] == "2000" && shown["backlog"] == "true" && shown["capacity"] == "40")
        let plain = try LoadOptions(arguments: ["routing", "--jwt-secret", "s"])
        #expect(!plain.backlog && plain.capacity == 0 && plain.holdSeconds == 2)
    }

    @Test("--reads: participants answer deliveries with read, and the report's parameters say so")
    func readsSwitch() throws {
        let options = try LoadOptions(arguments: ["fanout", "--jwt-secret", "s", "--reads", "--subscribers", "2"])
        #expect(options.sendsReads && options.subscribers == 2)
        #expect(options.displayed.contains { $0.name == "reads" && $0.value == "true" })
        let plain = try LoadOptions(arguments: ["fanout", "--jwt-secret", "s"])
        #expect(!plain.sendsReads && !plain.displayed.contains { $0.name == "reads" })
    }

    @Test("one --url is reported as it always was")
    func oneURL() throws {
        let options = try LoadOptions(arguments: ["conversations", "--jwt-secret", "s", "--url", "ws://127.0.0.1:9001"])
        #expect(options.endpoints == [GatewayEndpoint(host: "127.0.0.1", port: 9001, path: "/v1/ws")])
        let parameters = options.displayed
        #expect(parameters.first?.name == "url" && parameters.first?.value == "ws://127.0.0.1:9001/v1/ws")
        #expect(!parameters.contains { $0.name == "urls" })

        let defaults = try LoadOptions(arguments: ["conversations", "--jwt-secret", "s"])
        #expect(defaults.endpoints == [GatewayEndpoint(host: "127.0.0.1", port: 8080, path: "/v1/ws")])
    }

    @Test("--url repeats: every node in the order given, each with its own path")
    func repeatedURL() throws {
        let options = try LoadOptions(
            arguments: [
                "conversations", "--url", "ws://127.0.0.1:8081/v1/ws", "--jwt-secret", "s", "--url",
                "ws://localhost:8082", "--sessions", "4", "--url", "ws://10.0.0.3:8080/gateway/ws",
            ])
        #expect(
            options.endpoints == [
                GatewayEndpoint(host: "127.0.0.1", port: 8081, path: "/v1/ws"),
                GatewayEndpoint(host: "127.0.0.1", port: 8082, path: "/v1/ws"),
                GatewayEndpoint(host: "10.0.0.3", port: 8080, path: "/gateway/ws"),
            ])
        // The first node is the one `host`, `port` and `path` name.
        #expect(options.host == "127.0.0.1" && options.port == 8081 && options.path == "/v1/ws")
        #expect(options.sessions == 4)
        let parameters = options.displayed
        #expect(!parameters.contains { $0.name == "url" })
        #expect(
            parameters.first { $0.name == "urls" }?.value
                == "ws://127.0.0.1:8081/v1/ws,ws://127.0.0.1:8082/v1/ws,ws://10.0.0.3:8080/gateway/ws")
    }

    @Test(
        "mistakes are refused with a reason",
        arguments: [
            ["storms", "--jwt-secret", "s"],
            ["idle"],
            ["idle", "--jwt-secret", "s", "--url", "wss://127.0.0.1:1/v1/ws"],
            ["idle", "--jwt-secret", "s", "--url", "ws://gateway.internal:1/v1/ws"],
            ["idle", "--jwt-secret", "s", "--url", "ws://127.1:1/v1/ws"],
            // Every repeated --url is held to the same rules, and a node given twice is a mistake.
            ["idle", "--jwt-secret", "s", "--url", "ws://127.0.0.1:1/v1/ws", "--url", "wss://127.0.0.1:2/v1/ws"],
            ["idle", "--jwt-secret", "s", "--url", "ws://127.0.0.1:1/v1/ws", "--url", "ws://gateway.internal:2"],
            ["idle", "--jwt-secret", "s", "--url", "ws://127.0.0.1:1/v1/ws", "--url", "ws://localhost:1"],
            ["idle", "--jwt-secret", "s", "--url", "ws://127.0.0.1:1/v1/ws", "--url"],
            ["idle", "--jwt-secret", "s", "--sessions"],
            ["idle", "--jwt-secret", "s", "--rate", "-1"],
            ["ramp", "--jwt-secret", "s", "--threads", "2", "--sessions", "4"],
            ["conversations", "--jwt-secret", "s", "--body-bytes", "10"],
            ["conversations", "--jwt-secret", "s", "--frobnicate", "1"],
            ["conversations", "--jwt-secret", "s", "--workspace", "not-a-uuid"],
            // Numbers that would overflow the nanosecond clock or a count used to trap.
            ["conversations", "--jwt-secret", "s", "--seconds", "1e11"],
            ["conversations", "--jwt-secret", "s", "--drain", "inf"],
            // A ramp must carry traffic in every step and end.
            ["ramp", "--jwt-secret", "s", "--step-seconds", "0"],
            ["ramp", "--jwt-secret", "s", "--start", "1000", "--step", "0.5", "--max", "2000"],
            ["ramp", "--jwt-secret", "s", "--start", "1", "--step", "1", "--max", "100000"],
            // routing runs on one client loop, and needs operators and an arrival rate.
            ["routing", "--jwt-secret", "s", "--threads", "2", "--sessions", "4"],
            ["routing", "--jwt-secret", "s", "--operators", "0"],
            ["routing", "--jwt-secret", "s", "--rate", "0"],
            ["routing", "--jwt-secret", "s", "--capacity", "2.5"],
        ])
    func refusesMistakes(_ arguments: [String]) {
        #expect(throws: LoadOptions.UsageError.self) { try LoadOptions(arguments: arguments) }
    }
}
