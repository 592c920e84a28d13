import LoadKit
import SwitchboardJSON
import Testing

/// scripts/bench's chat section as scripts/lib/benchmarks_chat.py rendered it from
/// these inputs, byte for byte: an aborted run with a failed storm scenario whose
/// report carries odd values (error replies, notes, units, nulls), and scenarios
/// without reports.
@Suite("Chat section")
struct ChatSectionTests {
    @Test("the section of an aborted run with a failed scenario")
    func abortedRun() throws {
        let run = try #require(try JSONParser.parse(Self.run).objectValue)
        let storm = try JSONParser.parse(Self.storm, limits: .reports)
        let input = ChatSection.Run(run: run, reports: ["storm": storm], directory: "/tmp/gen/chatdir")
        #expect(ChatSection.render(input, machine: "M") == Self.expected)
    }

    static let run = #"""
        {
         "command": "scripts/bench --quick",
         "started": "2026-11-24 22:37 UTC",
         "quick": "0",
         "scenarios": "idle fanout storm ramp conversations",
         "report_dir": "/work/wt-setup/.build/bench-reports/2026-11-24-223818-quick",
         "pg_version": "15.18",
         "pg_fsync": "on",
         "pg_synchronous_commit": "on",
         "pg_full_page_writes": "on",
         "pg_shared_buffers": "2GB",
         "harness_nice": "none",
         "exit.idle": "0",
         "seconds.idle": "4",
         "args.idle": "",
         "exit.fanout": "0",
         "seconds.fanout": "5",
         "rss.fanout": "25 MiB",
         "exit.storm": "1",
         "seconds.storm": "12x",
         "args.storm": "--connections 600 --operators 2 --rate 600 --seconds 3",
         "rss.storm": "26 MiB",
         "exit.ramp": "2",
         "seconds.ramp": "5",
         "args.ramp": "--sessions 100 --operators 2 --start 2000 --step 2000 --max 6000 --step-seconds 3 --p99-bound-ms 25",
         "rss.ramp": "26 MiB",
         "rss.conversations": "27 MiB",
         "aborted": "ramp: loadtest exited 2"
        }

        """#

    static let storm = #"""
        {
         "scenario": "storm",
         "passed": false,
         "started_at": "2026-11-24T22:38:32Z",
         "duration_s": 0,
         "parameters": {
          "url": "ws://127.0.0.1:15722/v1/ws",
          "threads": "1",
          "connections": "600",
          "weird": "a, b"
         },
         "figures": {
          "stored_per_second": {
           "label": "stored and acked messages/s",
           "value": 600.119,
           "unit": "msg/s"
          },
          "mem": {
           "label": "Memory",
           "value": 1536.5,
           "unit": "B"
          },
          "rate": {
           "label": "Rate",
           "value": 12.345,
           "unit": "/s"
          },
          "small": {
           "label": "Small",
           "value": -0.125,
           "unit": "ms"
          },
          "none": {
           "label": "None",
           "value": null,
           "unit": "x"
          },
          "str": {
           "label": "Str",
           "value": "abc",
           "unit": "u"
          },
          "bool": {
           "label": "Bool",
           "value": true,
           "unit": ""
          },
          "big": {
           "label": "Big",
           "value": 1e+20,
           "unit": "B/connection"
          }
         },
         "latencies": {
          "send_to_ack": {
           "label": "send to ack",
           "count": 12345678,
           "p50_ms": null,
           "p90_ms": 0.125,
           "p99_ms": 25.311,
           "p999_ms": 38.583,
           "max_ms": 38.591,
           "curve": []
          }
         },
         "timeline": [],
         "correctness": {
          "gaps": null,
          "duplicates": 0,
          "reorders": 0,
          "lost_acks": 0,
          "unanswered": 0,
          "unexpected_closes": 0,
          "verified_in_database": 1800,
          "database_checked": false,
          "failures": 0,
          "errors": {
           "rate_limited": 1234567,
           "busy": 3,
           "Zed": 0.5
          }
         },
         "targets": [
          {
           "key": "connect_rate",
           "label": "connect rate",
           "target": "none (report only)",
           "measured": "996 conn/s; reconnect 1,027 conn/s",
           "value": 996.8473903801317,
           "goal": null,
           "unit": "conn/s",
           "met": null
          },
          {
           "label": "x",
           "target": "y",
           "measured": "z",
           "met": false
          },
          {
           "label": "nomet",
           "target": "t"
          }
         ],
         "notes": [
          "one note",
          42,
          null
         ]
        }

        """#

    static let expected = #"""
        ## Chat: end-to-end load (scripts/bench)

        > Aborted run: ramp: loadtest exited 2. Figures below are from the scenarios that finished.

        Run 2026-11-24 22:37 UTC on M.
        Command: `scripts/bench --quick`. The release gateway is pinned to core 0 (`taskset -c 0`), the `loadtest` harness (LoadTests/LoadTest) to core 1 (`taskset -c 1`); PostgreSQL 15.18, fresh for the run, with durable settings (fsync=on, synchronous_commit=on, full_page_writes=on, shared_buffers=2GB) is not pinned and shares both cores with them. The harness runs at the default priority, so time it waits for the CPU behind PostgreSQL counts as latency. The harness opens real WebSocket connections with JWTs (visitors and operator consoles), checks every delivery for gaps, duplicates and reordering, and afterwards checks acked messages against the database.

        Gateway configuration, against the defaults in config/switchboard.toml: `server.threads = 1` (one event loop for its one core); `chat.rate_per_second = 100000` and `chat.rate_burst = 100000` (defaults 20 and 40 frames/s per connection): the harness measures capacity, and its senders send far more than a person does, so the default limit would refuse most of their frames; `websocket.deflate.enabled = false` (the harness does not offer it); `log.level = "warning"`; `server.shutdown_grace_s = 2`. Everything else is the default (`chat.max_joined_sessions` 100, 2 writer connections, batches of up to 1024 messages, each sent when the previous one commits, 4 reader threads). One gateway process serves the scenarios in the order below, so sessions and rows accumulate: idle runs first, on the fresh process (memory freed by earlier scenarios would be reused without growing the RSS); ramp and conversations come last, because they drive the gateway into overload on purpose. Between scenarios the script runs VACUUM (ANALYZE) on the chat tables and waits 2 s, so autovacuum does not start inside a measurement; PostgreSQL runs with max_wal_size=4GB so that no checkpoint does either.

        ### Targets

        | scenario | measure | target | measured | result |
        | --- | --- | --- | ---: | --- |
        | idle | | | n/a | no report |
        | fanout | | | n/a | no report |
        | storm | connect rate | none (report only) | 996 conn/s; reconnect 1,027 conn/s | report only |
        | storm | x | y | z | **MISSED** |
        | storm | nomet | t | n/a | report only |
        | ramp | | | n/a | no report |
        | conversations | | | n/a | not run |

        References (published figures for other servers, not measured here): pure pub/sub, 50 rooms x 20 subscribers, uWebSockets about 800,000 deliveries/s and Node's `ws` about 76,000/s; these relay messages without authentication, storage, ordering or acknowledgements, which every delivery here includes. Memory per idle connection: uWebSockets 0.5 KiB (unauthenticated), Centrifugo 11-27 KiB.

        ### idle

        `loadtest idle`: no report (loadtest exit status 0).

        ### fanout

        `loadtest fanout`: no report (loadtest exit status 0).

        ### storm

        `loadtest storm --connections 600 --operators 2 --rate 600 --seconds 3` (12x s in all, gateway RSS 26 MiB afterwards). Correctness: **FAIL** (loadtest exit status 1).
        Parameters: threads 1, connections 600, weird a, b.

        | figure | value |
        | --- | ---: |
        | stored and acked messages/s | 600 msg/s |
        | Memory | 1,536 B (1.50 KiB) |
        | Rate | 12.3/s |
        | Small | -0.12 ms |
        | None | n/a |
        | Str | abc u |
        | Bool | 1 |
        | Big | 100,000,000,000,000,000,000 B (97656250000000000.00 KiB) |

        | latency | count | p50 | p90 | p99 | p99.9 | max |
        | --- | ---: | ---: | ---: | ---: | ---: | ---: |
        | send to ack | 12,345,678 | n/a | 0.12 ms | 25.31 ms | 38.58 ms | 38.59 ms |

        Correctness: n/a gaps, 0 duplicates, 0 reorders, 0 lost acks, 0 unanswered sends, 0 unexpected closes; the database was not checked. Error replies (reported, not failures): `Zed` 0.50, `busy` 3, `rate_limited` 1,234,567.
        Harness targets: connect rate none (report only): 996 conn/s; reconnect 1,027 conn/s (MISSED); x y: z (MISSED); nomet t: n/a (MISSED).

        Notes:

        - one note
        - 42
        - None

        ### ramp

        `loadtest ramp --sessions 100 --operators 2 --start 2000 --step 2000 --max 6000 --step-seconds 3 --p99-bound-ms 25`: no report (loadtest exit status 2).

        ### conversations

        `loadtest conversations`: not run (the run was aborted before it).

        Wall time per scenario (set-up and drain included): idle 4 s, fanout 5 s, storm 12x s, ramp 5 s; 14 s in all.
        Reports with charts (HTML) and the raw JSON were written to `/tmp/gen/chatdir/` (not committed).

        """#
}
