import Foundation
import SwitchboardPostgres
import SwitchboardWriter
import Synchronization

/// `--only alternate`: what the search indexer costs a saturated writer,
/// measured within one run. Separate runs of the batched writer on this
/// machine differ by a quarter and more (each on a fresh database, its own
/// checkpoints and disk), more than the effect to weigh, so here one writer
/// stores without pause (commands submitted as fast as it takes them) for
/// `--windows` windows of `--window-seconds` taken A B B A (pairs of pairs, so that
/// a drift over the run, as the tables grow, weighs on both sides alike). The
/// indexer is paused in the A windows and runs as the gateway's in the B
/// windows (yielding at `--search-share` percent while the writer is behind, which it
/// always is here); with `--same-sides` (A/A) it is paused in both, so the two
/// sides differ only by the method's own noise. The first `--settle-seconds` of
/// each window count for neither side.
///
/// Both sides write each batch's backlog row (migration 20): what they
/// differ by is the indexing alone; the backlog row is one small insert per
/// batch (docs/database.md, "Search").
struct AlternatingSearch {
    let url: String
    let options: Options

    struct Side {
        var stored = 0
        var seconds = 0.0
        var cpuSeconds = 0.0

        var perSecond: Double { seconds > 0 ? Double(stored) / seconds : 0 }
        var cpuMicrosPerMessage: Double { stored > 0 ? cpuSeconds * 1e6 / Double(stored) : 0 }

        mutating func add(stored: Int, seconds: Double, cpu: Double) {
            self.stored += stored
            self.seconds += seconds
            cpuSeconds += cpu
        }
    }

    func run() throws {
        let (windows, sameSides) = (options.windows, options.sameSides)
        let (windowSeconds, settleSeconds) = (Double(options.windowSeconds), Double(options.settleSeconds))
        let connection = try PostgresConnection(url)
        let (_, sessions) = try makeSessions(connection, count: options.sessions)
        let tally = Tally(capacity: 0)
        let writer = startWriter(url, options, tally)
        let indexer = AfterCommitLoop.search(url, writer: writer, share: options.searchShare)
        indexer.paused.store(true, ordering: .relaxed)
        let stopping = Atomic<Bool>(false)
        let submitted = Atomic<Int>(0)
        let submitter = Thread {
            var index = 0
            while !stopping.load(ordering: .relaxed) {
                let command = WriteCommand(
                    sessionID: sessions[index % sessions.count], clientMessageID: "alternate-\(index)",
                    senderRole: "visitor", senderID: "v-bench", senderName: nil, kind: "text", body: body(index),
                    origin: 0, token: UInt64(index))
                var outcome = writer.submit(command)
                while outcome == .overloaded && !stopping.load(ordering: .relaxed) {
                    usleep(1000)
                    outcome = writer.submit(command)
                }
                guard outcome == .accepted else { break }
                index += 1
                submitted.store(index, ordering: .relaxed)
            }
        }
        submitter.start()
        // One window to fill the queues and settle the writer before the first measured one.
        usleep(UInt32(windowSeconds * 1e6))
        var sides = (a: Side(), b: Side())
        for window in 0..<windows {
            // A B B A: window 0 is A, 1 and 2 are B, 3 is A, and again.
            let isB = [1, 2].contains(window % 4)
            indexer.paused.store(sameSides || !isB, ordering: .relaxed)
            usleep(UInt32(settleSeconds * 1e6))
            let started = now()
            let storedBefore = tally.stored.load(ordering: .acquiring)
            let cpuBefore = PostgresCPU.seconds()
            usleep(UInt32((windowSeconds - settleSeconds) * 1e6))
            let stored = tally.stored.load(ordering: .acquiring) - storedBefore
            let cpu = PostgresCPU.seconds() - cpuBefore
            let seconds = Double(now() - started) / 1e9
            if isB {
                sides.b.add(stored: stored, seconds: seconds, cpu: cpu)
            } else {
                sides.a.add(stored: stored, seconds: seconds, cpu: cpu)
            }
        }
        stopping.store(true, ordering: .relaxed)
        // Every accepted command answered, so that the writer stops with nothing in flight.
        while !submitter.isFinished { usleep(1000) }
        while tally.done < submitted.load(ordering: .relaxed) { usleep(1000) }
        indexer.stop()
        writer.stop()
        let change = sides.a.perSecond > 0 ? (sides.b.perSecond / sides.a.perSecond - 1) * 100 : 0
        report(
            "alternate",
            [
                "same_sides": .bool(sameSides), "search_share": .int(options.searchShare),
                "windows": .int(windows), "window_s": rounded(windowSeconds), "settle_s": rounded(settleSeconds),
                "a_per_s": .int(Int(sides.a.perSecond)), "b_per_s": .int(Int(sides.b.perSecond)),
                "change_percent": rounded(change),
                "a_pg_cpu_us_per_message": rounded(sides.a.cpuMicrosPerMessage),
                "b_pg_cpu_us_per_message": rounded(sides.b.cpuMicrosPerMessage),
                "indexed": .int(indexer.done.load(ordering: .relaxed)),
                "stored": .int(tally.stored.load(ordering: .relaxed)),
            ])
    }
}
