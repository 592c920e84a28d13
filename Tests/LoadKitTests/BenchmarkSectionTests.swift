import LoadKit
import SwitchboardJSON
import Testing

/// The sections the Python writers (scripts/lib/benchmarks_md.py) rendered from these
/// inputs, byte for byte: the expected texts are their output, with the heading fixed.
@Suite("Benchmark sections")
struct BenchmarkSectionTests {
    @Test("transport: rows in first-seen order, n/a for what is missing, ratios to switchboard and the floor")
    func transport() {
        let title = "Transport: WebSocket echo (scripts/bench-transport)"
        let text = TransportSection.render(
            output: Self.transportInput, seconds: "3", connections: "7", idle: "100", heading: Self.heading(title))
        #expect(text == Self.transportExpected + Self.raw(Self.transportInput))
    }

    @Test("writer: settings, both ways, ratio and latency, \"?\" and n/a where missing")
    func writer() {
        let title = "Writer: stored messages per second (scripts/bench-writer)"
        let text = WriterSection.render(output: Self.writerInput, command: "cmd", heading: Self.heading(title))
        #expect(text == Self.writerExpected + Self.raw(Self.writerInput))
    }

    @Test("writer: one row per floor line, ranges as low-high (one value when equal), \"?\" where missing")
    func writerFloor() {
        let title = "Writer: stored messages per second (scripts/bench-writer)"
        let input = Self.writerInput + Self.writerFloorInput
        let text = WriterSection.render(output: input, command: "cmd", heading: Self.heading(title))
        #expect(text == Self.writerExpected + Self.writerFloorExpected + Self.raw(input))
    }

    @Test("chat floor: network rows, the storage floor and what is left of the machine's cores")
    func chatFloor() {
        let title = "Chat floor: what the conversations target leaves for the gateway (scripts/bench-chat-floor)"
        let command = "scripts/bench-chat-floor --rate 50000"
        let text = ChatFloorSection.render(
            output: Self.floorInput, rate: 50000, command: command, cores: 2, heading: Self.heading(title))
        #expect(text == Self.floorExpected + Self.raw(Self.floorInput))
    }

    /// The heading the expected texts were rendered with (their date and machine fixed).
    static func heading(_ title: String) -> [String] { ["## \(title)", "", "Run D on M."] }

    @Test("chat floor rows: the network floor from a conversations report, the storage floor from /proc stat")
    func chatFloorRows() throws {
        let report = try JSONParser.parse(
            #"{"passed": true, "figures": {"gateway_cpu_cores": {"value": 0.97749}, "harness_cpu_cores": {"value": 1},"#
                + #" "stored_per_second": {"value": 49998.5}}, "latencies": {"send_to_delivery": {"p50_ms": 0.149,"#
                + #" "p99_ms": 19}}}"#)
        #expect(
            try ChatFloorRows.network(report: report, flushMs: 5)
                == #"{"kind": "network", "flush_ms": 5, "server_cores": 0.977, "harness_cores": 1, "stored_per_s": 49998,"#
                + #" "p50_ms": 0.149, "p99_ms": 19, "passed": true}"#)
        let before = "123 (postgres: x (y)) S 1 2 3 4 5 6 7 8 9 10 150 20 0 0\n"
        let after = "123 (postgres: x (y)) S 1 2 3 4 5 6 7 8 9 10 263 21 0 0\n"
        #expect(
            try ChatFloorRows.storage(before: before, after: after, rows: 100000, rate: 50000, ticks: 100)
                == #"{"kind": "storage", "rows": 100000, "backend_cpu_s": 1.14, "us_per_row": 11.4, "cores_at_rate": 0.57}"#
        )
        #expect(throws: ReportError.self) { try ChatFloorRows.network(report: .object([:]), flushMs: 0) }
    }

    @Test("fuzzing campaign: a target's log read as scripts/lib/fuzz_campaign.py read it")
    func fuzzCampaign() {
        let log = """
            #2\tINITED cov: 812 ft: 901 corp: 40/2Kb exec/s: 0 rss: 60Mb
            #3000000\tDONE   cov: 851 ft: 1022 corp: 45/3Kb lim: 4096 exec/s: 33333 rss: 210Mb
            stat::number_of_executed_units: 3000000
            stat::average_exec_per_sec:     33333
            stat::new_units_added:          5
            stat::peak_rss_mb:              210
            cpu_seconds: 97
            """
        let clean = FuzzCampaignSection.Target(name: "FuzzHTTP", log: log, keptFiles: 2, keptBytes: 6234)
        let found = FuzzCampaignSection.Target(
            name: "FuzzJSON", log: "==123==ERROR: AddressSanitizer: heap-buffer-overflow\n", keptFiles: 0, keptBytes: 0)
        let campaign = FuzzCampaignSection.Campaign(
            command: "scripts/fuzz-campaign", started: "S", minutes: 60, cpuMinutes: 2, parallel: 2, cores: 2)
        let lines = FuzzCampaignSection.render(campaign, targets: [clean, found]).split(
            separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines[6]
                == "| FuzzHTTP | HTTP/1.1 request parser | 1.6 min | 3,000,000 | 33,333 | 5 | 851 / 1022 | 2 inputs,"
                + " 6 KiB | 210 MB | no finding |")
        #expect(
            lines[7]
                == "| FuzzJSON | JSON parser | 0.0 min | 0 | 0 | 0 | ? / ? | 0 inputs, 0 KiB | 0 MB | **finding: see Fuzz/.out/** |"
        )
        #expect(lines[9] == "3,000,000 runs in all; **a target found something**.")
    }

    /// The section's end after the expected text: the benchmark's output verbatim.
    static func raw(_ input: String) -> String {
        "\n" + BenchmarksDoc.rawOutput(input).joined(separator: "\n") + "\n"
    }

    static let transportInput = #"""
        warming up...
        {"kind":"echo","label":"switchboard","offered":0,"round_trips_per_s":1e5,"server_cpu_us_per_round_trip":6.125}
        {"kind":"echo","label":"switchboard","offered":20000.0,"round_trips_per_s":19999.5,"server_cpu_us_per_round_trip":0}
        {"kind":"echo","label":"echo-floor","offered":0,"round_trips_per_s":2,"server_cpu_us_per_round_trip":2.5}
        {"kind":"echo","label":"echo-floor","offered":5000,"server_cpu_us_per_round_trip":0.00001}
        {"kind":"idle","label":"switchboard","bytes_per_connection":3000.7}
        {"kind":"echo","label":"node-ws","offered":0,"round_trips_per_s":"n/a","server_cpu_us_per_round_trip":"12.5"}
        {"kind":"echo","label":"node-ws","offered":0,"round_trips_per_s":77,"server_cpu_us_per_round_trip":13.0}
        {"kind":"idle","label":"node-ws","bytes_per_connection":9001}
        {"kind":"echo","offered":5000,"server_cpu_us_per_round_trip":1}
        {"kind":"other","label":"hb"}
        {"label":"nokind"}
          {"kind":"idle","label":"hb","bytes_per_connection":null}

        """#

    static let transportExpected = #"""
        ## Transport: WebSocket echo (scripts/bench-transport)

        Run D on M.
        Command: `scripts/bench-transport --seconds 3 --connections 7 --idle 100`. Each server pinned to core 0 (`taskset -c 0`), the client (`transport-bench`) to core 1; the gateway runs one event loop (`--threads 1`).

        Echo: 7 connections, 64-byte text messages, each connection waits for its echo before sending again; 3 s per regime after a 1 s warm-up. Closed loop sends again at once (the saturated cost, where one wake-up serves many messages); paced sends a fixed total rate spread over the connections, so each message wakes the server. Server CPU is user + system time from /proc/PID/stat. Idle: RSS growth per upgraded WebSocket connection at 100 connections (no TLS, no deflate).

        | server | round trips/s (closed loop) | CPU per round trip: closed loop | paced 20,000/s | paced 5,000/s | RSS per idle connection |
        | --- | ---: | ---: | ---: | ---: | ---: |
        | switchboard | 100000.0 | 6.125 µs | n/a | n/a | 2.93 KiB |
        | echo-floor | 2 | 2.5 µs | n/a | 1e-05 µs | n/a |
        | node-ws | 77 | 13.0 µs | n/a | n/a | 8.79 KiB |
        | ? | n/a | n/a | n/a | 1 µs | n/a |
        | hb | n/a | n/a | n/a | n/a | n/a |

        - node-ws spends 2.1x (closed loop) the server CPU per round trip that switchboard does; 3x the memory per idle connection.
        - ? spends  the server CPU per round trip that switchboard does.
        - hb spends  the server CPU per round trip that switchboard does.
        - Against echo-floor (LoadTests/Floors/echo-floor.c: a minimal C epoll echo, one read and one write per message, so its cost is the kernel's loopback TCP and the epoll sleep and wake-up that any server pays here):
          - switchboard: 2.45x (closed loop) the floor's CPU per round trip.
          - node-ws: 5.20x (closed loop) the floor's CPU per round trip.
          - ?: 100000.00x (paced 5,000/s) the floor's CPU per round trip.
          - hb:  the floor's CPU per round trip.
        """#

    static let writerInput = #"""
        {"kind":"settings","server_version":"16.1","fsync":"off"}
        {"kind":"batched","messages":2,"seconds":0.5,"per_s":4.0,"connections":3,"batch":true,"mean_batch":null}
        {"kind":"latency","p50_ms":1e-7,"p99_ms":123456789012345678,"max_ms":1.0e20}

        """#

    static let writerExpected = #"""
        ## Writer: stored messages per second (scripts/bench-writer)

        Run D on M.
        Command: `cmd`. A fresh private PostgreSQL 16.1 with durable settings (fsync=off, synchronous_commit=?, full_page_writes=?, wal_sync_method=?, shared_buffers=?, max_wal_size=?); `writer-bench` pinned to core 1, PostgreSQL not pinned (it shares both cores).
        Naive: one connection, one autocommitted `INSERT INTO chats` per message, seq counted client-side. Batched: `BatchWriter` (3 connections, sessions sharded over them; batches of up to True messages, a smaller one sent when the connection's previous batch has committed (after a ? ms wait for company), up to ? full batches in flight per connection), each batch one call of `switchboard_append_messages` (row locks, dedup, gap-free seq) and one commit; submitted as fast as the queues take them. Both ways build their messages before the clock starts. Both runs start on the same database with new sessions, messages spread round-robin over them; the database is vacuumed, analyzed and checkpointed before each run (naive, batched, then latency), so none pays for the autovacuum the previous run's rows call for, and no checkpoint starts inside one.

        | way | messages | seconds | stored messages/s |
        | --- | ---: | ---: | ---: |
        | naive | n/a | n/a | n/a |
        | batched | 2 | 0.5 | 4.0 |

        Batched over naive: **n/ax** (mean batch None messages, mean commit ? ms from send to commit).

        Commit latency at ? messages/s offered (open loop: message i is due at start + i/rate, latency runs from when it was due to its result; ? s after a 1 s warm-up, ? messages, ? refused):

        | p50 | p90 | p99 | p99.9 | max |
        | ---: | ---: | ---: | ---: | ---: |
        | 1e-07 ms | ? ms | 123456789012345678 ms | ? ms | 1e+20 ms |
        """#

    static let writerFloorInput = #"""
        {"kind":"floor_run","batch":1000,"way":"floor","repeat":1,"pg_cpu_us_per_row":31.05}
        {"kind":"floor","batch":1000,"repeats":3,"rows":200000,"floor_pg_cpu_us_per_row":[31.05,37.4],"writer_pg_cpu_us_per_row":[37.5,43.5],"cpu_ratio":[1.08,1.4],"floor_per_s":[26242,30836],"writer_per_s":[29397,41521]}
        {"kind":"floor","batch":20,"repeats":1,"rows":100,"floor_pg_cpu_us_per_row":[44.2,44.2],"cpu_ratio":[2.5]}

        """#

    static let writerFloorExpected = #"""


        Against the floor (`writer-bench --only floor`): the same rows stored by a bare `INSERT ... SELECT` from arrays, with what the writer's function works out (ids, seq, workspace) made on the client, one prepared statement and one commit per batch, on as many connections as the writer, each with its own sessions; then by the writer with batches of that size. Pairs in alternating order on new sessions, each side vacuumed and checkpointed first, autovacuum off for the tables both write; CPU is every PostgreSQL process's, from /proc (ranges over the pairs):

        | batch | pairs | rows | floor CPU µs/row | writer CPU µs/row | writer / floor (CPU) | floor rows/s | writer rows/s |
        | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
        | 1000 | 3 | 200000 | 31.05-37.4 | 37.5-43.5 | 1.08-1.4x | 26242-30836 | 29397-41521 |
        | 20 | 1 | 100 | 44.2 | ? | ?x | ? | ? |
        """#

    static let floorInput = #"""
        {"kind": "network", "flush_ms": 0, "server_cores": 0.977, "harness_cores": 0.914, "stored_per_s": 49999, "p50_ms": 0.149, "p99_ms": 19.311, "passed": true}
        {"kind": "network", "flush_ms": 5, "server_cores": 0.884, "harness_cores": 0.782, "stored_per_s": 49842, "p50_ms": 18.111, "p99_ms": 28.607, "passed": true}
        {"kind": "network", "flush_ms": 10, "server_cores": 0.791, "harness_cores": 0.709, "stored_per_s": 49868, "p50_ms": 26.415, "p99_ms": 31.855, "passed": true}
        not json: a progress line
        {"kind": "storage", "rows": 100000, "backend_cpu_s": 1.13, "us_per_row": 11.3, "cores_at_rate": 0.565}

        """#

    static let floorExpected = #"""
        ## Chat floor: what the conversations target leaves for the gateway (scripts/bench-chat-floor)

        Run D on M.
        Command: `scripts/bench-chat-floor --rate 50000`. Network: chat-floor (LoadTests/Floors/chat-floor.c, a C epoll server that answers the harness like the gateway but stores nothing) on core 0, the release `loadtest` conversations scenario (1,000 sessions of 1 visitor + 2 operators, 50,000 msg/s for 10 s) on core 1 at nice -5, as scripts/bench runs it; with `--flush-ms W` chat-floor writes every W ms instead of after every pass. Storage: one INSERT ... SELECT into `chats` (five indexes, the foreign key) on a fresh durable PostgreSQL, the backend's CPU per row.

        | chat-floor writes | server | harness | server + harness | p50 / p99 send to delivery | acked |
        | --- | ---: | ---: | ---: | ---: | ---: |
        | after every pass | 0.98 cores | 0.91 cores | 1.89 cores | 0.15 / 19.31 ms | 49,999 msg/s |
        | every 5 ms | 0.88 cores | 0.78 cores | 1.67 cores | 18.11 / 28.61 ms | 49,842 msg/s |
        | every 10 ms | 0.79 cores | 0.71 cores | 1.50 cores | 26.41 / 31.86 ms | 49,868 msg/s |

        PostgreSQL's least work per stored message: 11.30 µs of backend CPU per row (100,000 rows in 1.13 s), 0.56 cores at 50,000 msg/s, before any session lock, numbering, duplicate answer, result or round trip (and with one commit).

        | chat-floor writes | network floor + storage floor | the machine's cores | left for everything else |
        | --- | ---: | ---: | ---: |
        | after every pass | 2.46 cores | 2 | -0.46 cores |
        | every 5 ms | 2.23 cores | 2 | -0.23 cores |
        | every 10 ms | 2.06 cores | 2 | -0.06 cores |
        """#
}
