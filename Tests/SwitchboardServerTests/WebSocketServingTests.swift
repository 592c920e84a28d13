import Foundation
import SwitchboardDeflate
import Testing

@testable import SwitchboardServer

/// The echo endpoint end to end: handshake, framing rules, and closes with their codes.
@Suite(.serialized) struct WebSocketServingTests {
    private func closeCode(_ frame: (opcode: UInt8, payload: [UInt8])?) -> Int? {
        guard let frame, frame.opcode == 8, frame.payload.count >= 2 else { return nil }
        return Int(frame.payload[0]) << 8 | Int(frame.payload[1])
    }

    @Test func handshakeAndEcho() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        let head = client.upgrade(extraHeaders: "Sec-WebSocket-Protocol: switchboard.v1\r\n")
        #expect(head.hasPrefix("HTTP/1.1 101 "))
        #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        #expect(head.contains("Sec-WebSocket-Protocol: switchboard.v1"))
        for size in [0, 5, 125, 126, 65535, 65536, 200_000] {
            let payload = (0..<size).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            client.send(RawClient.maskedFrame(opcode: 1, payload: payload))
            let frame = client.readFrame()
            #expect(frame?.opcode == 1)
            #expect(frame?.payload == payload, "size \(size)")
        }
    }

    @Test func fragmentsWithInterleavedPingAreReassembled() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        client.send(RawClient.maskedFrame(opcode: 1, payload: Array("Hel".utf8), fin: false))
        client.send(RawClient.maskedFrame(opcode: 9, payload: Array("p".utf8)))
        client.send(RawClient.maskedFrame(opcode: 0, payload: Array("lo".utf8)))
        let pong = client.readFrame()
        #expect(pong?.opcode == 10 && pong?.payload == Array("p".utf8))
        let echo = client.readFrame()
        #expect(echo?.opcode == 1 && echo?.payload == Array("Hello".utf8))
    }

    /// A peer that answers nothing for two heartbeat intervals is dropped without a
    /// close frame (1001 means a shutdown, and a gone peer would not read it); one
    /// that answers the pings stays.
    @Test func aSilentPeerIsDroppedAfterTwoHeartbeatsAndAnAnsweringOneStays() throws {
        let running = try RunningServer { $0.heartbeatSeconds = 1 }
        defer { running.stop() }
        let silent = try RawClient(port: running.port, timeoutSeconds: 6)
        _ = silent.upgrade()
        nonisolated(unsafe) let answering = try RawClient(port: running.port, timeoutSeconds: 6)
        _ = answering.upgrade()
        // The answering client answers every ping from its own thread, and keeps the rest.
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var echoed: [UInt8]?
        Thread.detachNewThread {
            while let frame = answering.readFrame() {
                if frame.opcode == 9 {
                    answering.send(RawClient.maskedFrame(opcode: 10, payload: frame.payload))
                } else {
                    echoed = frame.payload
                    break
                }
            }
            answered.signal()
        }
        let started = ContinuousClock.now
        var silentOpcodes: [UInt8] = []
        while let frame = silent.readFrame() { silentOpcodes.append(frame.opcode) }
        let droppedAfter = ContinuousClock.now - started
        #expect(!silentOpcodes.isEmpty && silentOpcodes.allSatisfy { $0 == 9 }, "pings, no close: \(silentOpcodes)")
        #expect(droppedAfter > .seconds(1) && droppedAfter < .seconds(4), "dropped after \(droppedAfter)")
        sleep(1)
        answering.send(RawClient.maskedFrame(opcode: 1, payload: Array("still here".utf8)))
        #expect(answered.wait(timeout: .now() + 5) == .success)
        #expect(echoed == Array("still here".utf8))
        let metrics = try HTTPTestClient.request(port: running.port, "GET", "/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains(#"switchboard_closes_total{code="1006"} 1"#))
    }

    @Test func unmaskedFrameClosesWith1002() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        client.send([0x81, 0x02, 0x68, 0x69])
        #expect(closeCode(client.readFrame()) == 1002)
    }

    @Test func invalidUTF8ClosesWith1007() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        client.send(RawClient.maskedFrame(opcode: 1, payload: [0xce, 0xba, 0xff]))
        #expect(closeCode(client.readFrame()) == 1007)
    }

    @Test func oversizeMessageClosesWith1009() throws {
        let running = try RunningServer { $0.echoMaxMessageBytes = 1000 }
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        client.send(RawClient.maskedFrame(opcode: 2, payload: [UInt8](repeating: 1, count: 1001)))
        #expect(closeCode(client.readFrame()) == 1009)
    }

    @Test func aMessageLargerThanTheBacklogLimitStillEchoes() throws {
        let running = try RunningServer {
            $0.maxOutboundBytes = 4096
            $0.echoMaxMessageBytes = 1 << 20
        }
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        let payload = [UInt8](repeating: 7, count: 900_000)
        client.send(RawClient.maskedFrame(opcode: 2, payload: payload))
        let echo = client.readFrame()
        #expect(echo?.opcode == 2 && echo?.payload == payload)
    }

    @Test func aReaderThatNeverReadsIsClosedWith1008() throws {
        let running = try RunningServer {
            $0.maxOutboundBytes = 4096
            $0.echoMaxMessageBytes = 1000
        }
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        // Far more than the socket buffers hold, without reading any echo.
        let frame = RawClient.maskedFrame(opcode: 2, payload: [UInt8](repeating: 1, count: 1000))
        client.send(Array([[UInt8]](repeating: frame, count: 20_000).joined()))
        var last: (opcode: UInt8, payload: [UInt8])?
        while let frame = client.readFrame() {
            last = frame
            if frame.opcode == 8 { break }
        }
        #expect(closeCode(last) == 1008)
    }

    @Test func closeHandshakeEchoesTheCodeAndClosesTCP() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        client.send(RawClient.maskedFrame(opcode: 8, payload: [0x03, 0xe8] + Array("bye".utf8)))
        #expect(closeCode(client.readFrame()) == 1000)
        #expect(client.readToEnd().isEmpty)  // then EOF
    }

    @Test func handshakeRefusals() throws {
        let running = try RunningServer { $0.allowedOrigins = ["https://allowed.example"] }
        defer { running.stop() }
        let badOrigin = try RawClient(port: running.port)
        #expect(badOrigin.upgrade(extraHeaders: "Origin: https://evil.example\r\n").hasPrefix("HTTP/1.1 403 "))
        let goodOrigin = try RawClient(port: running.port)
        #expect(goodOrigin.upgrade(extraHeaders: "Origin: https://allowed.example\r\n").hasPrefix("HTTP/1.1 101 "))
        let wrongVersion = try RawClient(port: running.port)
        wrongVersion.send(
            "GET /v1/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n")
        let head = wrongVersion.readHead()
        #expect(head.hasPrefix("HTTP/1.1 426 "))
        #expect(head.contains("Sec-WebSocket-Version: 13"))
        let noKey = try RawClient(port: running.port)
        noKey.send(
            "GET /v1/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        #expect(noKey.readHead().hasPrefix("HTTP/1.1 400 "))
    }

    @Test func deflateIsNegotiatedWhenOfferedAndEnabled() throws {
        let running = try RunningServer()
        defer { running.stop() }
        let client = try RawClient(port: running.port)
        let head = client.upgrade(
            extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n")
        #expect(head.lowercased().contains("sec-websocket-extensions: permessage-deflate"))
        let off = try RunningServer { $0.deflateEnabled = false }
        defer { off.stop() }
        let plain = try RawClient(port: off.port)
        let plainHead = plain.upgrade(extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate\r\n")
        #expect(plainHead.hasPrefix("HTTP/1.1 101 "))
        #expect(!plainHead.lowercased().contains("sec-websocket-extensions"))
    }

    @Test("by default the server forgets its window, and its loop's one compressor serves every such connection")
    func deflateSharesTheLoopsCompressor() throws {
        let running = try RunningServer { $0.threads = 1 }
        defer { running.stop() }
        let message = Array(String(repeating: "Hello, is anyone there? I need help with my order. ", count: 8).utf8)
        for _ in 0..<2 {
            let client = try RawClient(port: running.port)
            let head = client.upgrade(extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate\r\n")
            #expect(head.lowercased().contains("permessage-deflate; server_no_context_takeover"))
            client.send(RawClient.maskedFrame(opcode: 0x1, payload: message))
            let echo = try #require(client.readFrame())
            #expect(echo.opcode == 0x1 && echo.payload.count < message.count / 2)  // compressed
            let inflater = try MessageInflater(windowBits: 15, noContextTakeover: true)
            var inflated: [UInt8] = []
            try echo.payload.withUnsafeBytes { try inflater.inflate($0, limit: 1 << 20, into: &inflated) }
            try inflater.finishMessage(limit: 1 << 20, into: &inflated)
            #expect(inflated == message)
        }
        // Both echoes came from the loop's compressor; neither connection made its own.
        #expect(running.server.context.loopDeflaters.map(\.count) == [1])
    }

    @Test func shutdownClosesWebSocketsWith1001() throws {
        let running = try RunningServer()
        let client = try RawClient(port: running.port)
        _ = client.upgrade()
        running.stop()
        #expect(closeCode(client.readFrame()) == 1001)
    }
}
