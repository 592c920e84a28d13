import Foundation
import Testing

@testable import SwitchboardNATS

/// The client against a scripted server: the exact bytes it sends, and what
/// it does when the server misbehaves (silence, no INFO, -ERR, garbage).
@Suite struct NATSProtocolTests {
    static let info = #"INFO {"server_id":"FAKE","version":"2.9.10","max_payload":64}"# + "\r\n"

    func client(
        _ server: FakeNATSServer, _ recorder: ClientRecorder, name: String = "fake-test",
        timings: NATSTimings = .standard
    ) throws -> NATSClient {
        NATSClient(
            address: try NATSAddress(parsing: server.url), name: name, maxBufferedBytes: 1 << 20, timings: timings,
            onMessage: recorder.onMessage, onState: recorder.onState)
    }

    /// INFO, then the client's CONNECT...PING, answered: the client is connected.
    func handshake(_ connection: FakeConnection, _ client: NATSClient) throws {
        try connection.send(Self.info)
        try #require(try connection.read(until: "PING\r\n"))
        try connection.send("PONG\r\n")
        try client.wait(for: .connected)
    }

    @Test func handshakeSubscriptionsPublicationsAndDelivery() throws {
        let server = try FakeNATSServer()
        let recorder = ClientRecorder()
        let client = try client(server, recorder)
        defer { client.stop() }
        client.subscribe("chat.>")
        #expect(client.publish("early", Array("queued".utf8)))
        client.start()

        let connection = try server.accept()
        try connection.send(Self.info)
        try #require(try connection.read(until: "PING\r\n"))
        // Quiet CONNECT with the name, the subscriptions, and the PING that confirms them.
        #expect(
            connection.received
                == #"CONNECT {"verbose":false,"pedantic":false,"name":"fake-test","lang":"swift","version":"1.0.0"}"#
                + "\r\nSUB chat.> 1\r\nPING\r\n")
        // Nothing is published before the server has answered.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(!connection.received.contains("PUB"))
        #expect(client.state == .connecting)

        try connection.send("PONG\r\n")
        try client.wait(for: .connected)
        #expect(try connection.read(until: "PING\r\nPUB early 6\r\nqueued\r\n"))

        // The server's PING is answered.
        try connection.send("PING\r\n")
        #expect(try connection.read(until: "queued\r\nPONG\r\n"))

        // Messages for our sid are delivered with their concrete subject; others are not.
        try connection.send("MSG chat.room 1 2\r\nhi\r\nMSG chat.room 99 4\r\nlost\r\n")
        #expect(try recorder.wait(for: 1, on: "chat.room") == ["hi"])

        // Changes on a live connection: subscribing twice is a no-op, each subject has its sid.
        client.subscribe("chat.>")
        client.subscribe("other")
        client.unsubscribe("chat.>")
        #expect(try connection.read(until: "PONG\r\nSUB other 2\r\nUNSUB 1\r\n"))
        try connection.send("MSG chat.room 1 4\r\nlate\r\nMSG other 2 3\r\nyes\r\n")
        #expect(try recorder.wait(for: 1, on: "other") == ["yes"])
        #expect(recorder.messages("chat.room") == ["hi"])

        // The INFO's max_payload (64) and invalid subjects are refused up front.
        #expect(!client.publish("big", [UInt8](repeating: 0, count: 65)))
        #expect(!client.publish("two words", []))
        #expect(client.publish("fits", [UInt8](repeating: UInt8(ascii: "x"), count: 64)))
        #expect(try connection.read(until: "PUB fits 64\r\n" + String(repeating: "x", count: 64) + "\r\n"))
        #expect(!connection.received.contains("PUB big"))
        let expected = NATSStatistics(messagesIn: 2, messagesOut: 2, reconnects: 0, dropped: 2)
        #expect(waitUntil(timeout: 5) { client.statistics == expected }, "\(client.statistics)")
        #expect(recorder.states == [.connected])
    }

    @Test func aServerThatStopsAnsweringPingsIsLeftAfterTwo() throws {
        var timings = NATSTimings.standard
        timings.pingInterval = 100
        let server = try FakeNATSServer()
        let recorder = ClientRecorder()
        let client = try client(server, recorder, timings: timings)
        defer { client.stop() }
        client.start()
        let first = try server.accept()
        try handshake(first, client)

        let silentSince = Date()
        #expect(try first.readUntilClosed(timeout: 5))
        let detectedAfter = Date().timeIntervalSince(silentSince)
        // The handshake's PING, then two unanswered ones, 100 ms of silence apart.
        #expect(first.received.components(separatedBy: "PING\r\n").count - 1 == 3)
        #expect(detectedAfter >= 0.25 && detectedAfter < 3, "dead after \(detectedAfter) s")
        try client.wait(for: .disconnected)

        let second = try server.accept()
        try handshake(second, client)
        #expect(recorder.states == [.connected, .disconnected, .connected])
        #expect(client.statistics.reconnects == 1)
    }

    @Test func aServerThatSendsNoInfoIsLeftAtTheHandshakeDeadline() throws {
        var timings = NATSTimings.standard
        timings.handshakeTimeout = 300
        let server = try FakeNATSServer()
        let recorder = ClientRecorder()
        let client = try client(server, recorder, timings: timings)
        defer { client.stop() }
        client.start()
        let mute = try server.accept()
        #expect(try mute.readUntilClosed(timeout: 5))
        #expect(mute.received.isEmpty)  // the server speaks first
        let second = try server.accept()
        try handshake(second, client)
        #expect(recorder.states == [.connected])
        #expect(client.statistics.reconnects == 0)  // the first connection never completed
    }

    @Test func anErrorDuringTheHandshakeMeansTryAgain() throws {
        let server = try FakeNATSServer()
        let recorder = ClientRecorder()
        let client = try client(server, recorder)
        defer { client.stop() }
        client.start()
        let refused = try server.accept()
        try refused.send(Self.info)
        try #require(try refused.read(until: "PING\r\n"))
        try refused.send("-ERR 'Authorization Violation'\r\n")
        #expect(try refused.readUntilClosed(timeout: 5))
        #expect(client.state == .connecting)
        try handshake(try server.accept(), client)
    }

    @Test func garbageFromTheServerDropsTheConnection() throws {
        let server = try FakeNATSServer()
        let recorder = ClientRecorder()
        let client = try client(server, recorder)
        defer { client.stop() }
        client.start()
        let first = try server.accept()
        try handshake(first, client)
        try first.send("HELLO THERE\r\n")
        #expect(try first.readUntilClosed(timeout: 5))
        // Held until the states are read: a temporary would close at once,
        // and a client quick to see it would add a fourth state.
        let second = try server.accept()
        try handshake(second, client)
        #expect(recorder.states == [.connected, .disconnected, .connected])
        withExtendedLifetime(second) {}
    }

    @Test func stopWritesWhatIsQueuedAndWaitsForTheServersPong() throws {
        let server = try FakeNATSServer()
        let recorder = ClientRecorder()
        // A grace far longer than the wait below: the stop ends by the PONG, not by the grace.
        var timings = NATSTimings.standard
        timings.stopGrace = 30_000
        let client = try client(server, recorder, timings: timings)
        client.start()
        let connection = try server.accept()
        try handshake(connection, client)
        for index in 0..<3 { client.publish("last", Array("\(index)".utf8)) }
        let stopped = Flag()
        let stopper = Thread {
            client.stop()
            stopped.set()
        }
        stopper.start()
        let expected = "PUB last 1\r\n0\r\nPUB last 1\r\n1\r\nPUB last 1\r\n2\r\nPING\r\n"
        #expect(try connection.read(until: expected))
        #expect(!stopped.isSet)  // still waiting for the PONG
        try connection.send("PONG\r\n")
        #expect(waitUntil(timeout: 10) { stopped.isSet })
        #expect(try connection.readUntilClosed(timeout: 5))
        #expect(client.state == .disconnected)
        #expect(!client.publish("after", []))
        #expect(recorder.states == [.connected, .disconnected])
    }
}
