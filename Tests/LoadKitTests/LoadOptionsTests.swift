import LoadKit
import Testing

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

    @Test(
        "mistakes are refused with a reason",
        arguments: [
            ["storms", "--jwt-secret", "s"],
            ["idle"],
            ["idle", "--jwt-secret", "s", "--url", "wss://127.0.0.1:1/v1/ws"],
            ["idle", "--jwt-secret", "s", "--url", "ws://gateway.internal:1/v1/ws"],
            ["idle", "--jwt-secret", "s", "--url", "ws://127.1:1/v1/ws"],
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
        ])
    func refusesMistakes(_ arguments: [String]) {
        #expect(throws: LoadOptions.UsageError.self) { try LoadOptions(arguments: arguments) }
    }
}
