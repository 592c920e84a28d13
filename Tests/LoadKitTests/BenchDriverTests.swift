import SwitchboardSystem
import Synchronization
import Testing

@testable import LoadKit

#if canImport(Glibc)
import Glibc
#endif

@Suite("Bench drivers: the abuser and what the drivers read")
struct BenchDriverTests {
    @Test("the abuser's counts: a closed connection counts by the status the gateway answered")
    func abuserCountsAnswers() {
        var counts = AbuserCounts()
        counts.count(answer: Array("HTTP/1.1 429 Too Many Requests\r\n".utf8))
        counts.count(answer: Array("HTTP/1.1 408 Request Timeout\r\n".utf8))
        counts.count(answer: Array("HTTP/1.1 503 Service Unavailable\r\n".utf8))
        counts.count(answer: Array("HTTP/1.1 400 Bad Request\r\n".utf8))
        counts.count(answer: [])
        #expect(counts.answered429 == 1 && counts.answered408 == 1 && counts.answered503 == 1)
        #expect(counts.answeredOther == 1 && counts.closedUnanswered == 1)
        counts.attempts = 12
        counts.maxHeld = 3
        counts.seconds = 1.234
        let read = AbuserCounts(json: counts.json)
        #expect(read.attempts == 12 && read.maxHeld == 3 && read.seconds == 1.23 && read.answered429 == 1)
        #expect(counts.json.text.hasPrefix("{\"attempts\":12,\"connect_failed\":0,\"answered_429\":1,"))
    }

    @Test("the abuser floods only in B windows, by the wall clock the harness splits its latency on")
    func abuserWindows() {
        var abuser = Abuser(port: 1, seconds: 1)
        #expect(abuser.attacking(atWall: 7_000_000_000))
        abuser.alternateSeconds = 5
        // Windows of 5 s from the epoch: 0 A, 1 B, 2 B, 3 A, 4 A, 5 B.
        let second: UInt64 = 1_000_000_000
        #expect(!abuser.attacking(atWall: 2 * second))
        #expect(abuser.attacking(atWall: 7 * second))
        #expect(abuser.attacking(atWall: 12 * second))
        #expect(!abuser.attacking(atWall: 17 * second))
        #expect(!abuser.attacking(atWall: 22 * second))
        #expect(abuser.attacking(atWall: 27 * second))
    }

    @Test("loadtest uploader's flags")
    func uploaderFlags() throws {
        let uploader = try UploaderDriver.parse([
            "8080", "30", "--jwt-secret", "s", "--concurrency", "5", "--size", "4096", "--alternate", "10",
        ])
        #expect(uploader.port == 8080 && uploader.seconds == 30 && uploader.secret == "s")
        #expect(uploader.concurrency == 5 && uploader.size == 4096 && uploader.alternateSeconds == 10)
        #expect(try UploaderDriver.parse(["8080", "30", "--jwt-secret", "s"]).alternateSeconds == 0)
    }

    @Test("loadtest bench-latency's flags: a subset of the shapes, the ramp left out, and then no section written")
    func latencyFlags() throws {
        let all = try LatencyDriver.parse([])
        #expect(all.shapes.count == 3 && all.ramp && !all.partial)
        let one = try LatencyDriver.parse(["--shapes", "500x2", "--skip-ramp", "--repeats", "1"])
        #expect(one.shapes.map { "\($0.0)x\($0.1)x\($0.2)" } == ["500x2x10000"])
        #expect(!one.ramp && one.partial && one.repeats == 1)
        #expect(try LatencyDriver.parse(["--shapes", "10x100,50x20"]).shapes.count == 2)
        #expect(try LatencyDriver.parse(["--skip-ramp"]).partial)
        #expect(throws: DriverFlags.UsageError.self) { try LatencyDriver.parse(["--shapes", "500x3"]) }
        let reads = try LatencyDriver.parse(["--shapes", "500x2,50x20", "--reads", "--rate", "2000"])
        #expect(reads.reads && reads.partial && !all.reads)
        #expect(reads.shapes.map { "\($0.0)x\($0.1)x\($0.2)" } == ["500x2x2000", "50x20x2000"])
        #expect(try LatencyDriver.parse(["--rate", "5000"]).partial)
        #expect(throws: DriverFlags.UsageError.self) { try LatencyDriver.parse(["--rate", "fast"]) }
    }

    @Test("loadtest abuser's flags")
    func abuserFlags() throws {
        let abuser = try AbuserDriver.parse(["8080", "18", "--rate", "500", "--alternate", "5"])
        #expect(abuser.port == 8080 && abuser.seconds == 18 && abuser.rate == 500 && abuser.alternateSeconds == 5)
        #expect(abuser.source == "127.0.0.2" && abuser.dripSeconds == 5)
        #expect(throws: DriverFlags.UsageError.self) { try AbuserDriver.parse(["8080"]) }
        #expect(throws: DriverFlags.UsageError.self) { try AbuserDriver.parse(["8080", "1", "--burst", "2"]) }
    }

    @Test("the abuser opens connections from its own address at its rate and counts the 429s it is answered")
    func abuserAgainstAListener() throws {
        let listener = try Socket.listen(
            on: SocketAddress(host: "127.0.0.1", port: 0, family: .inet), reusePort: false, backlog: 128)
        let port = try #require(Socket.localPort(listener))
        let peers = Peers()
        let server = NamedThread.spawn(name: "fake-gateway") {
            let answer = Array("HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\n\r\n".utf8)
            var poll = PollSet([listener])
            let deadline = MonotonicClock.nanoseconds() + 3_000_000_000
            while MonotonicClock.nanoseconds() < deadline {
                guard (try? poll.wait(timeoutMilliseconds: 50)) ?? 0 > 0 else { continue }
                var address = sockaddr_in()
                var length = socklen_t(MemoryLayout<sockaddr_in>.size)
                let fd = withUnsafeMutablePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &length) }
                }
                guard fd >= 0 else { continue }
                peers.add(address.sin_addr.s_addr)
                _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Posix.close(fd)
            }
        }
        var abuser = Abuser(port: port, seconds: 1)
        abuser.rate = 50
        let counts = try abuser.run()
        server.join()
        Posix.close(listener)
        #expect(counts.attempts >= 45 && counts.attempts <= 52)
        #expect(counts.connectFailed == 0)
        #expect(counts.answered429 >= counts.attempts - 2)
        // 127.0.0.2, in network order.
        #expect(peers.addresses.allSatisfy { $0 == UInt32(0x7f00_0002).bigEndian })
    }

    @Test("the ramp's notes give each step's rate, sends, acks and p99")
    func rampNotes() {
        let note = RampNote("step 2500 msg/s: sent 10000, acked 9950, p99 delivery 12.5 ms: sustained")
        #expect(note?.rate == 2500 && note?.sent == 10000 && note?.acked == 9950 && note?.p99Ms == 12.5)
        #expect(RampNote("step 2500 msg/s: sent 10000, acked 9950, p99 delivery inf ms: not sustained") == nil)
        #expect(RampNote("the harness's own words") == nil)
    }

    @Test("refusals by reason from /metrics")
    func refusals() {
        let text = """
            # TYPE switchboard_connections_refused_total counter
            switchboard_connections_refused_total{reason="per_ip_connections"} 12
            switchboard_connections_refused_total{reason="per_ip_rate"} 3.0
            switchboard_connections_total 99
            """
        #expect(AbuseBench.refused(text) == ["per_ip_connections": 12, "per_ip_rate": 3])
    }

    @Test("a process's name and CPU ticks from /proc/PID/stat, and backends by application name")
    func procAndBackends() {
        let stat = "4242 (postgres: writer) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 1 0 1 1 1"
        #expect(CPUSampler.parseStat(stat)?.name == "postgres: writer")
        #expect(CPUSampler.parseStat(stat)?.ticks == 325)
        let rows = BackendCPU.parse("101|switchboard-writer\n102|\n103|switchboard-bus\n")
        #expect(rows.map(\.pid) == [101, 102, 103])
        #expect(rows.map(\.application) == ["switchboard-writer", "other", "switchboard-bus"])
    }

    @Test("postgres processes that are not client backends are named by their titles")
    func auxiliaryRoles() {
        #expect(BackendCPU.auxiliaryRole(title: "postgres: autovacuum worker tbench") == "autovacuum")
        #expect(BackendCPU.auxiliaryRole(title: "postgres: checkpointer ") == "background")
        #expect(BackendCPU.auxiliaryRole(title: "postgres: walwriter ") == "background")
        #expect(BackendCPU.auxiliaryRole(title: "/usr/lib/postgresql/15/bin/postgres -D /x") == "postmaster")
        #expect(BackendCPU.auxiliaryRole(title: "postgres: postgres tbench 127.0.0.1(5432) idle") == nil)
        #expect(BackendCPU.databaseName("postgresql://postgres@127.0.0.1:29960/tbench?sslmode=disable") == "tbench")
    }

    @Test("the machine's busy ticks leave out idle, I/O wait, the host's steal and the guest time user already counts")
    func cpuCounters() {
        let stat = "cpu  5225835 112874 853687 3774521 80077 0 133022 165443 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n"
        let counters = CPUCounters(stat: stat)
        #expect(counters?.busy == 5_225_835 + 112_874 + 853_687 + 133_022)
        #expect(counters?.steal == 165_443)
        // guest (40) and guest_nice (4) are inside user (100) and nice (10).
        #expect(CPUCounters(stat: "cpu  100 10 50 1000 5 1 2 30 40 4\n")?.busy == 163)
        let old = CPUCounters(stat: "cpu  1 2 3 4 5 6 7\n")
        #expect(old?.busy == 19 && old?.steal == nil, "a kernel without steal")
        #expect(CPUCounters(stat: "cpu  1 2 3 4\n") == nil)
        #expect(CPUCounters(stat: "cpu  1 2 x 4 5 6 7 8\n") == nil)
        #expect(CPUCounters(stat: "intr 1 2 3 4 5 6 7 8 9\n") == nil)
    }

    @Test("the CPU sampler sees this machine's busy cores")
    func samplerSamples() {
        let sampler = CPUSampler(named: [("nothing", "no-such-process-anywhere")])
        sampler.measure { ThisProcess.sleep(milliseconds: 1200) }
        let cores = sampler.cores()
        #expect(cores["machine"] != nil && cores["steal"] != nil && cores["postgres"] != nil && cores["nothing"] == 0)
    }
}

/// The peer addresses the fake gateway accepted, from its thread.
private final class Peers: Sendable {
    private let list = Mutex<[UInt32]>([])
    func add(_ address: UInt32) { list.withLock { $0.append(address) } }
    var addresses: [UInt32] { list.withLock { $0 } }
}
