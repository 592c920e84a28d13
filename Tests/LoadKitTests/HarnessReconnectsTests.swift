import Foundation
import Testing

@testable import LoadKit

/// A node going away mid-run (close 1001, or a dropped socket): the harness
/// reconnects, rejoins and re-sends, and every check still holds exactly,
/// so a gateway that loses something across the reconnect is still caught.
@Suite("The harness survives a connection closed mid-run, and still catches what is lost")
struct HarnessReconnectsTests {
    @Test("closed with 1001 mid-run: reconnected, rejoined, the unacked send re-sent; every check passes")
    func goingAway() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 0, fault: .goingAway)
        let report = try Self.conversation(against: server)

        #expect(report.passed, "notes: \(report.notes)")
        #expect(report.correctness == Correctness())
        #expect(figure("reconnections_after_close", in: report) == 1)
        // At least the send whose ack the close swallowed went out again, and was acked as a duplicate.
        #expect((figure("resent_after_reconnect", in: report) ?? 0) >= 1)
        #expect(server.duplicateSends >= 1)
        #expect(report.notes.contains { $0.contains("acked as duplicates") })
        #expect(report.notes.contains { $0.contains("reconnecting: closeFrame(1001)") })
        // Every one of the 100 messages stored once, acked once, delivered once to each of the two.
        #expect(server.storedCount == 100)
        #expect(figure("sent", in: report) == 100)
        #expect(figure("acked", in: report) == 100)
        #expect(figure("deliveries", in: report) == 200)
        // The visitor, the operator, then whichever of them was closed, saying hello again.
        #expect(server.greeted.count == 3)

        #expect(TextReport.render(report).contains("reconnections after a close"))
        #expect(HTMLReport.render(report).contains("<td>reconnections after a close</td>"))
        let json = try JSONSerialization.jsonObject(with: Data(JSONReport.render(report).utf8)) as? [String: Any]
        let figures = try #require(json?["figures"] as? [String: [String: Any]])
        #expect((figures["reconnections_after_close"]?["value"] as? NSNumber)?.intValue == 1)
        #expect(figures["reconnections_after_close"]?["label"] as? String == "reconnections after a close")
    }

    @Test("a socket that just ends (no close frame) mid-run is reconnected the same way")
    func connectionDrop() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 0, fault: .connectionDrop)
        let report = try Self.conversation(against: server)
        #expect(report.passed, "notes: \(report.notes)")
        #expect(figure("reconnections_after_close", in: report) == 1)
        #expect(figure("deliveries", in: report) == 200)
    }

    @Test("a gateway that loses a message across the reconnect fails the run: one gap")
    func lostAcrossReconnect() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 0, fault: .losesOneAcrossReconnect)
        let report = try Self.conversation(against: server)
        #expect(!report.passed)
        #expect(report.correctness.gaps == 1)
        #expect(report.correctness.duplicates == 0 && report.correctness.reorders == 0)
        #expect(report.correctness.unanswered == 0)
        #expect(figure("reconnections_after_close", in: report) == 1)
    }

    @Test("a replay bringing again seqs the participant had is no delivery and no error; the run passes")
    func replayOverlap() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 0, fault: .replaysWhatItHad)
        let report = try Self.conversation(against: server)
        #expect(report.passed, "notes: \(report.notes)")
        #expect(report.correctness.duplicates == 0)
        #expect(figure("deliveries", in: report) == 200)
        #expect(report.notes.contains { $0.hasPrefix("3 seqs a rejoin's replay brought again") })
    }

    @Test("a close with any other code (1008) is still an unexpected close: no reconnect, the run fails")
    func policyClose() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 0, fault: .policyClose)
        let report = try Self.conversation(against: server)
        #expect(!report.passed)
        #expect(report.correctness.unexpectedCloses == 1)
        #expect(report.correctness.unanswered >= 1)  // the send the close swallowed
        #expect(figure("reconnections_after_close", in: report) == nil)
        #expect(server.greeted.count == 2)
        #expect(report.notes.contains { $0.contains("closeFrame(1008)") })
    }

    @Test("a node that never comes back fails the run: the participant is not quietly left out of the checks")
    func goneForGood() throws {
        let server = try FaultInjectingServer(delayMilliseconds: 0, fault: .goneForGood)
        let report = try Self.conversation(against: server, extra: ["--drain", "1"])
        #expect(!report.passed)
        #expect(report.correctness.unexpectedCloses == 1, "notes: \(report.notes)")
        #expect(report.notes.contains { $0.contains("not back after a close") })
        #expect(report.correctness.unanswered >= 1)
        #expect(figure("reconnections_after_close", in: report) == 0)
    }

    @Test("without any close, the report has no reconnection figures")
    func noCloseNoFigures() throws {
        let report = try Self.conversation(against: FaultInjectingServer(delayMilliseconds: 0, fault: .repeatedAck))
        #expect(figure("reconnections_after_close", in: report) == nil)
        #expect(figure("resent_after_reconnect", in: report) == nil)
        #expect(!TextReport.render(report).contains("reconnect"))
    }

    private func figure(_ key: String, in report: RunReport) -> Double? {
        report.figures.first { $0.key == key }?.value
    }

    /// One visitor and one operator sending 100 messages/s for a second
    /// against `server`, with up to 3 s to drain; the server stops after.
    private static func conversation(against server: FaultInjectingServer, extra: [String] = []) throws -> RunReport {
        defer { server.stop() }
        let options = try LoadOptions(
            arguments: [
                "conversations", "--url", "ws://127.0.0.1:\(server.port)/v1/ws", "--jwt-secret",
                "a-test-secret-that-is-long-enough-for-hs256", "--sessions", "1", "--operators", "1", "--rate", "100",
                "--seconds", "1", "--warmup", "0", "--drain", "3",
            ] + extra)
        return try LoadRun.run(options)
    }
}

@Suite("Reconnection pieces")
struct ReconnectionPiecesTests {
    @Test("back-off: 50 ms doubling to 1 s")
    func backOff() {
        let delays = (1...ReconnectPolicy.maxAttempts).map { ReconnectPolicy.delay(beforeAttempt: $0) / 1_000_000 }
        #expect(delays == [50, 100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000])
    }

    @Test("1001, a dropped socket and a load balancer's 502-504 call for a reconnect; nothing else does")
    func whichCloses() {
        #expect(ReconnectPolicy.retries(after: .closeFrame(1001)))
        #expect(ReconnectPolicy.retries(after: .transport("connection closed by the gateway without a close frame")))
        #expect(ReconnectPolicy.retries(after: .upgradeRefused("HTTP/1.1 503 Service Unavailable: <html>")))
        #expect(ReconnectPolicy.retries(after: .upgradeRefused("HTTP/1.0 502 Bad Gateway")))
        for code: UInt16 in [1000, 1003, 1005, 1008, 1009, 4001, 4008] {
            #expect(!ReconnectPolicy.retries(after: .closeFrame(code)), "close \(code)")
        }
        #expect(!ReconnectPolicy.retries(after: .upgradeRefused("HTTP/1.1 401 Unauthorized")))
        #expect(!ReconnectPolicy.retries(after: .breach("the gateway broke RFC 6455: a masked server frame")))
        #expect(!ReconnectPolicy.retries(after: .local))
    }

    @Test("outstanding sends: answered by counter or by instant, the rest kept in order")
    func outstanding() {
        var sends = OutstandingSends()
        for counter in 1...5 { sends.append(counter: counter, scheduled: UInt64(100 + counter)) }
        #expect(sends.answer(counterBits: 2) == 2)
        #expect(sends.answer(counterBits: 2) == nil)  // a second answer is not one
        #expect(sends.answer(scheduled: 104) == 4)
        #expect(sends.answer(counterBits: 9) == nil)  // never sent
        var left: [Int] = []
        sends.forEach { counter, scheduled in
            #expect(scheduled == UInt64(100 + counter))
            left.append(counter)
        }
        #expect(left == [1, 3, 5] && sends.count == 3)
        for counter in [1, 3, 5] { #expect(sends.answer(counterBits: counter) == counter) }
        #expect(sends.isEmpty)
        sends.append(counter: 6, scheduled: 106)
        #expect(sends.answer(counterBits: 6) == 6)
    }

    @Test("outstanding sends: counters past 24 bits match their client_msg_id's low bits")
    func outstandingWraps() {
        var sends = OutstandingSends()
        let first = 0xFF_FFFE
        for counter in first..<(first + 4) { sends.append(counter: counter, scheduled: UInt64(counter)) }
        #expect(sends.answer(counterBits: (first + 2) & 0xFF_FFFF) == first + 2)
        #expect(sends.answer(counterBits: first & 0xFF_FFFF) == first)
        #expect(sends.count == 2)
    }
}
