import Foundation
import SwitchboardDeflate
import Testing

@testable import SwitchboardServer

/// The echo endpoint in-process, over in-memory connections: handshake,
/// framing rules, heartbeats, and closes with their codes.
@Suite struct WebSocketServingTests {
    private func closeCode(_ frame: (opcode: UInt8, payload: [UInt8])?) -> Int? {
        guard let frame, frame.opcode == 8, frame.payload.count >= 2 else { return nil }
        return Int(frame.payload[0]) << 8 | Int(frame.payload[1])
    }

    @Test func handshakeAndEcho() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
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
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
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
    /// that answers the pings stays. Time passes in 10 ms steps.
    @Test func aSilentPeerIsDroppedAfterTwoHeartbeatsAndAnAnsweringOneStays() throws {
        let gateway = try EmbeddedGateway { $0.heartbeatSeconds = 1 }
        defer { gateway.stop() }
        let silent = gateway.client()
        _ = silent.upgrade()
        let answering = gateway.client()
        _ = answering.upgrade()
        // The answering client answers every ping as it comes.
        func answerPings() {
            for frame in answering.framesWritten() where frame.opcode == 9 {
                answering.send(RawClient.maskedFrame(opcode: 10, payload: frame.payload))
            }
        }
        var silentOpcodes: [UInt8] = []
        var droppedAfter: UInt64?
        var elapsed: UInt64 = 0
        while droppedAfter == nil && elapsed < 6000 {  // 6 s: the silent socket client's read timeout
            gateway.advance(by: 10)
            elapsed += 10
            silentOpcodes += silent.framesWritten().map(\.opcode)
            if silent.isAtEnd { droppedAfter = elapsed }
            answerPings()
        }
        #expect(!silentOpcodes.isEmpty && silentOpcodes.allSatisfy { $0 == 9 }, "pings, no close: \(silentOpcodes)")
        let dropped = try #require(droppedAfter, "the silent peer was not dropped")
        #expect(dropped > 1000 && dropped < 4000, "dropped after \(dropped) ms")
        for _ in 0..<100 {  // one more second
            gateway.advance(by: 10)
            answerPings()
        }
        answering.send(RawClient.maskedFrame(opcode: 1, payload: Array("still here".utf8)))
        var echoed: [UInt8]?
        while let frame = answering.readFrame() {
            if frame.opcode == 9 {
                answering.send(RawClient.maskedFrame(opcode: 10, payload: frame.payload))
            } else {
                echoed = frame.payload
                break
            }
        }
        #expect(echoed == Array("still here".utf8))
        let metrics = try HTTPTestClient.request(gateway, "GET", "/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains(#"switchboard_closes_total{code="1006"} 1"#))
    }

    @Test func unmaskedFrameClosesWith1002() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        _ = client.upgrade()
        client.send([0x81, 0x02, 0x68, 0x69])
        #expect(closeCode(client.readFrame()) == 1002)
    }

    @Test func invalidUTF8ClosesWith1007() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        _ = client.upgrade()
        client.send(RawClient.maskedFrame(opcode: 1, payload: [0xce, 0xba, 0xff]))
        #expect(closeCode(client.readFrame()) == 1007)
    }

    @Test func oversizeMessageClosesWith1009() throws {
        let gateway = try EmbeddedGateway { $0.echoMaxMessageBytes = 1000 }
        defer { gateway.stop() }
        let client = gateway.client()
        _ = client.upgrade()
        client.send(RawClient.maskedFrame(opcode: 2, payload: [UInt8](repeating: 1, count: 1001)))
        #expect(closeCode(client.readFrame()) == 1009)
    }

    @Test func closeHandshakeEchoesTheCodeAndClosesTCP() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        _ = client.upgrade()
        client.send(RawClient.maskedFrame(opcode: 8, payload: [0x03, 0xe8] + Array("bye".utf8)))
        #expect(closeCode(client.readFrame()) == 1000)
        #expect(client.readToEnd().isEmpty)  // then EOF
        #expect(client.isAtEnd)
    }

    @Test func handshakeRefusals() throws {
        let gateway = try EmbeddedGateway { $0.allowedOrigins = ["https://allowed.example"] }
        defer { gateway.stop() }
        let badOrigin = gateway.client()
        #expect(badOrigin.upgrade(extraHeaders: "Origin: https://evil.example\r\n").hasPrefix("HTTP/1.1 403 "))
        let goodOrigin = gateway.client()
        #expect(goodOrigin.upgrade(extraHeaders: "Origin: https://allowed.example\r\n").hasPrefix("HTTP/1.1 101 "))
        let wrongVersion = gateway.client()
        wrongVersion.send(
            "GET /v1/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n")
        let head = wrongVersion.readHead()
        #expect(head.hasPrefix("HTTP/1.1 426 "))
        #expect(head.contains("Sec-WebSocket-Version: 13"))
        let noKey = gateway.client()
        noKey.send(
            "GET /v1/echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        #expect(noKey.readHead().hasPrefix("HTTP/1.1 400 "))
    }

    @Test func deflateIsNegotiatedWhenOfferedAndEnabled() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        let head = client.upgrade(
            extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n")
        #expect(head.lowercased().contains("sec-websocket-extensions: permessage-deflate"))
        let off = try EmbeddedGateway { $0.deflateEnabled = false }
        defer { off.stop() }
        let plain = off.client()
        let plainHead = plain.upgrade(extraHeaders: "Sec-WebSocket-Extensions: permessage-deflate\r\n")
        #expect(plainHead.hasPrefix("HTTP/1.1 101 "))
        #expect(!plainHead.lowercased().contains("sec-websocket-extensions"))
    }

    @Test("by default the server forgets its window, and its loop's one compressor serves every such connection")
    func deflateSharesTheLoopsCompressor() throws {
        let gateway = try EmbeddedGateway { $0.threads = 1 }
        defer { gateway.stop() }
        let message = Array(String(repeating: "Hello, is anyone there? I need help with my order. ", count: 8).utf8)
        for _ in 0..<2 {
            let client = gateway.client()
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
        #expect(gateway.context.loopDeflaters.map(\.count) == [1])
    }

    /// What `Server.shutdown` asks of each connection (`GracefulShutdownRequest`).
    @Test func shutdownClosesWebSocketsWith1001() throws {
        let gateway = try EmbeddedGateway()
        defer { gateway.stop() }
        let client = gateway.client()
        _ = client.upgrade()
        gateway.beginShutdown()
        #expect(closeCode(client.readFrame()) == 1001)
        #expect(client.isAtEnd)
    }
}

/// What only a socket shows of the echo endpoint: the kernel's buffers
/// filling behind a slow reader, against the backlog limit.
@Suite(.serialized) struct WebSocketBackpressureTests {
    private func closeCode(_ frame: (opcode: UInt8, payload: [UInt8])?) -> Int? {
        guard let frame, frame.opcode == 8, frame.payload.count >= 2 else { return nil }
        return Int(frame.payload[0]) << 8 | Int(frame.payload[1])
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

    /// Echo bytes a client that read nothing finds before the 1008 close:
    /// what the gateway's kernel buffer and its 4 KiB queue held when it cut
    /// the connection off (besides the client's own small receive buffer).
    private func heldBeforeTheCut(kernelSendBufferBytes: Int) throws -> Int {
        let running = try RunningServer {
            $0.maxOutboundBytes = 4096
            $0.echoMaxMessageBytes = 1000
            $0.kernelSendBufferBytes = kernelSendBufferBytes
        }
        defer { running.stop() }
        let client = try RawClient(port: running.port, receiveBuffer: 4096)
        _ = client.upgrade()
        let frame = RawClient.maskedFrame(opcode: 2, payload: [UInt8](repeating: 1, count: 1000))
        client.send(Array([[UInt8]](repeating: frame, count: 20_000).joined()))
        var echoed = 0
        while let frame = client.readFrame() {
            if frame.opcode == 8 {
                #expect(closeCode(frame) == 1008)
                return echoed
            }
            echoed += frame.payload.count
        }
        Issue.record("no close frame after \(echoed) echoed bytes")
        return echoed
    }

    @Test func theKernelHoldsNoMoreThanItsConfiguredSendBufferBesideTheQueue() throws {
        // 16 KiB asked, 32 KiB kept by the kernel, 4 KiB queued, the client's buffer.
        let held = try heldBeforeTheCut(kernelSendBufferBytes: 16 << 10)
        #expect(held <= 128 << 10, "\(held) bytes echoed before the cut")
        // Autotuning's buffer, for contrast: megabytes on loopback.
        let autotuned = try heldBeforeTheCut(kernelSendBufferBytes: 0)
        #expect(autotuned > 512 << 10, "\(autotuned) bytes echoed before the cut")
    }
}
