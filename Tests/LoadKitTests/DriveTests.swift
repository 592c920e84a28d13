import Testing

@testable import LoadKit

#if canImport(Glibc)
import Glibc
#endif

@Suite("Drive: send stages between two scrapes")
struct SendStagesTests {
    /// Bucket lines of an exposition: (stage, le, cumulative count).
    static func exposition(_ buckets: [(String, String, Int)], extra: [String]) -> String {
        (buckets.map { #"switchboard_send_stage_seconds_bucket{stage="\#($0.0)",le="\#($0.1)"} \#($0.2)"# } + extra)
            .joined(separator: "\n")
    }

    static let before = exposition(
        [
            ("total", "0.001", 10), ("total", "0.002", 20), ("total", "0.005", 30), ("total", "+Inf", 30),
            ("queue", "0.001", 5), ("queue", "+Inf", 5),
        ], extra: ["# HELP switchboard_send_stage_seconds x", "switchboard_writer_queue_depth 3"])
    static let after = exposition(
        [
            ("total", "0.001", 60), ("total", "0.002", 170), ("total", "0.005", 228), ("total", "+Inf", 230),
            ("queue", "0.001", 5), ("queue", "+Inf", 105), ("commit", "0.004", 3), ("commit", "+Inf", 3),
            ("Bad", "0.004", 3),
        ], extra: [#"switchboard_send_stage_seconds_count{stage="total"} 230"#])

    // The figures scripts/lib/send_stages.py printed for the same two files.
    @Test("the difference of two scrapes, interpolated inside buckets")
    func figures() {
        let stages = SendStages.between(before: Self.before, after: Self.after)
        #expect(stages.map(\.name) == ["receive", "queue", "commit", "handoff", "deliver", "total"])
        let byName = Dictionary(uniqueKeysWithValues: stages.map { ($0.name, $0) })
        #expect(
            byName["total"] == SendStages.Stage(name: "total", count: 200, p50Milliseconds: 1.5, p99Milliseconds: 5))
        // Every count past the last finite bound: the bound is reported.
        #expect(byName["queue"] == SendStages.Stage(name: "queue", count: 100, p50Milliseconds: 1, p99Milliseconds: 1))
        #expect(
            byName["commit"] == SendStages.Stage(name: "commit", count: 3, p50Milliseconds: 2, p99Milliseconds: 3.96))
        #expect(byName["receive"] == SendStages.Stage(name: "receive", count: 0))
        let json = SendStages.json(stages).text
        #expect(json.contains(#""total":{"count":200,"p50_ms":1.5,"p99_ms":5.0}"#))
        #expect(json.contains(#""deliver":{"count":0,"p50_ms":null,"p99_ms":null}"#))
    }

    @Test("only exact bucket lines count; labels in another order or an upper-case stage do not")
    func strictLines() {
        let text = """
            switchboard_send_stage_seconds_bucket{le="0.001",stage="total"} 5
            switchboard_send_stage_seconds_bucket{stage="Total",le="0.001"} 5
            switchboard_send_stage_seconds_bucket{stage="total",le="0.001"} 5.5
              switchboard_send_stage_seconds_bucket{stage="total",le="0.001"} 7
            """
        let buckets = SendStages.buckets(text)
        #expect(buckets.keys.sorted() == ["total"])
        #expect(buckets["total"]?.map(\.count) == [7])
    }

    @Test("a single value by name, labels written out")
    func singleValues() {
        let text = "switchboard_writer_queue_depth 3\nswitchboard_connections{role=\"visitor\"} 12\n"
        #expect(PrometheusText.value("switchboard_writer_queue_depth", in: text) == 3)
        #expect(PrometheusText.value("switchboard_connections{role=\"visitor\"}", in: text) == 12)
        #expect(PrometheusText.value("switchboard_writer_queue", in: text) == nil)
    }
}

@Suite("Drive: pure helpers")
struct DrivePureTests {
    @Test("Theil-Sen slope: a steady trend as least squares does, a few spikes ignored")
    func robustSlope() {
        #expect(LineFit.slope([(0, 1), (1, 3), (2, 5), (3, nil)]) == 2, "unknown values skipped")
        #expect(LineFit.slope([(0, 1), (1, 3), (2, 5), (3, 7), (4, 90), (5, 11)]) == 2)
        #expect(LineFit.slope([(0, 1), (1, 100)]) == 0)
        #expect(LineFit.slope([(1, 1), (1, 5), (1, 9)]) == 0)
        #expect(LineFit.slope([(0, 4), (1, 4), (2, 4), (3, 4), (4, 4), (5, 60)]) == 0)
    }

    @Test("the gateway's configuration is the text scripts/lib/bench_gateway.py wrote")
    func gatewayConfig() {
        var config = GatewayConfig(port: 4567, jwtSecret: "abc")
        config.threads = 2
        config.shutdownGraceSeconds = 5
        #expect(
            config.toml
                == "\n[server]\nlisten = [\"127.0.0.1:4567\"]\nthreads = 2\nshutdown_grace_s = 5\n\n"
                + "[websocket.deflate]\nenabled = false\n[chat]\nrate_per_second = 100000\nrate_burst = 100000\n"
                + "[auth]\njwt_secret = \"abc\"\n[log]\nlevel = \"warning\"\n\n")
        #expect(
            GatewayProcess.command(binDirectory: "/b", configPath: "/w/g.toml", databaseURL: "postgresql://x", core: 1)
                == [
                    "taskset", "-c", "1", "/b/switchboard", "serve", "--config", "/w/g.toml", "--database-url",
                    "postgresql://x",
                ])
        #expect(
            GatewayProcess.command(binDirectory: "/b/", configPath: "c", databaseURL: "d", core: nil).first
                == "/b/switchboard")
        #expect(
            GatewayProcess.environment(from: ["PATH": "/bin", "SWITCHBOARD_DATABASE_URL": "x", "HOME": "/h"])
                == ["PATH": "/bin", "HOME": "/h"])
    }

    @Test("HTTP answers: by Content-Length, to the end, incomplete, malformed")
    func httpAnswers() {
        let whole = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello+more".utf8)
        guard case .complete(let response) = HTTPResponse.parse(whole, ended: false) else {
            Issue.record("not complete")
            return
        }
        #expect(response.status == 200)
        #expect(response.text == "hello")
        #expect(response.header("content-type") == "text/plain")
        let short = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot".utf8)
        guard case .incomplete = HTTPResponse.parse(short, ended: false) else {
            Issue.record("a short body is incomplete")
            return
        }
        guard case .malformed = HTTPResponse.parse(short, ended: true) else {
            Issue.record("a body cut by the close is malformed")
            return
        }
        let unframed = Array("HTTP/1.1 503 Service Unavailable\r\n\r\nnot ready".utf8)
        guard case .complete(let closed) = HTTPResponse.parse(unframed, ended: true) else {
            Issue.record("a body without length ends with the connection")
            return
        }
        #expect(closed.status == 503 && closed.text == "not ready")
        guard case .malformed = HTTPResponse.parse(Array("SSH-2.0\r\n\r\n".utf8), ended: false) else {
            Issue.record("not HTTP")
            return
        }
    }

    @Test("flags: values, =values, switches, words; unknown and missing values refused")
    func flags() throws {
        let flags = try DriverFlags(
            ["7", "--bin", "/b", "--rate=50", "--quick", "--seconds", "2.5"], options: ["bin", "rate", "seconds"],
            switchNames: ["quick"])
        #expect(flags.positional == ["7"])
        #expect(try flags.required("bin") == "/b")
        #expect(try flags.int("rate", default: 1) == 50)
        #expect(try flags.double("seconds", default: 1) == 2.5)
        #expect(try flags.int("sessions", default: 9) == 9)
        #expect(flags.has("quick") && !flags.has("drain"))
        #expect(throws: DriverFlags.UsageError.self) { try DriverFlags(["--nope"], options: []) }
        #expect(throws: DriverFlags.UsageError.self) { try DriverFlags(["--bin"], options: ["bin"]) }
        #expect(throws: DriverFlags.UsageError.self) {
            try DriverFlags(["--rate", "x"], options: ["rate"]).int("rate", default: 0)
        }
        #expect(throws: DriverFlags.UsageError.self) { try DriverFlags([], options: ["bin"]).required("bin") }
    }

    @Test("flags: an optional whole number within a range")
    func rangedFlags() throws {
        let flags = try DriverFlags(["--rounds", "64", "--threads", "0"], options: ["rounds", "threads", "per"])
        #expect(try flags.int("rounds", in: 1...64) == 64)
        #expect(try flags.int("per", in: 1...1024) == nil)
        let refused = #expect(throws: DriverFlags.UsageError.self) { try flags.int("threads", in: 1...64) }
        #expect(refused?.description == "--threads takes 1 to 64")
        #expect(throws: DriverFlags.UsageError.self) {
            try DriverFlags(["--rounds", "x"], options: ["rounds"]).int("rounds", in: 1...64)
        }
    }

    @Test("times: a report's started_at to epoch seconds; the log line's shape")
    func times() {
        #expect(DriveClock.parseUTC("1970-01-01T00:00:00Z") == 0)
        #expect(DriveClock.parseUTC("2026-11-23T18:11:05Z") == 1_795_457_465)
        #expect(DriveClock.parseUTC("2000-02-29T12:00:00Z") == 951_825_600)
        #expect(DriveClock.parseUTC("2026-11-23 18:11:05") == nil)
        #expect(DriveClock.parseUTC("2026-13-23T18:11:05Z") == nil)
        #expect(DriveLog(tag: "soak").line("hello", at: "18:11:05") == "[18:11:05 soak] hello")
        #expect(DriveClock.localTimeOfDay().count == 8)
    }

    @Test("/proc facts: VmRSS from a status text; this process's own descriptors")
    func procFacts() {
        #expect(ProcessFacts.residentKiB(status: "Name:\tx\nVmPeak:\t 9 kB\nVmRSS:\t   30876 kB\n") == 30876)
        #expect(ProcessFacts.residentKiB(status: "Name:\tx\n") == nil)
        #expect((ProcessFacts.residentKiB(getpid()) ?? 0) > 0)
        #expect((ProcessFacts.openDescriptors(getpid()) ?? 0) >= 3)
    }

    @Test("exit statuses as Python's returncode: the code, or minus the signal")
    func exits() {
        #expect(ProcessExit.decode(3 << 8) == .exited(3))
        #expect(ProcessExit.decode(9) == .signalled(9))
        #expect(ProcessExit.signalled(9).code == -9 && ProcessExit.exited(0).succeeded)
    }
}

@Suite("Drive: child processes")
struct ChildProcessTests {
    @Test("a command's outputs captured apart, with its exit code")
    func captured() throws {
        let result = try CapturedCommand.run(["sh", "-c", "echo out; echo err >&2; exit 3"])
        #expect(result.exit == .exited(3))
        #expect(result.standardOutput == "out\n")
        #expect(result.standardError == "err\n")
        #expect(throws: DriveError.self) { try CapturedCommand.check(["sh", "-c", "exit 1"]) }
        #expect(throws: DriveError.self) { try CapturedCommand.run(["/nonexistent/program"]) }
        let environment = try CapturedCommand.run(["sh", "-c", "echo $ONLY"], environment: ["ONLY": "this"])
        #expect(environment.standardOutput == "this\n")
    }

    @Test("a spawned process: running, signalled, waited for with a timeout")
    func spawned() throws {
        let sleeper = try SpawnedProcess(["sleep", "30"], output: .discard)
        #expect(sleeper.isRunning)
        #expect(sleeper.wait(timeoutSeconds: 0.1) == nil)
        #expect(sleeper.stop(timeoutSeconds: 5) == .signalled(SIGTERM))
        #expect(!sleeper.isRunning)
        let quick = try SpawnedProcess(["sh", "-c", "exit 4"], output: .discard)
        #expect(quick.wait(timeoutSeconds: 10) == .exited(4))
    }
}
