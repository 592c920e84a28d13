import Foundation
import SwitchboardSystem
import Testing

@testable import SwitchboardServer

/// wss:// through an independent client: Python's ssl module (with the
/// `websockets` package when available) against a TLS listener.
@Suite(.serialized) struct TLSServingTests {
    static let clientScript = #"""
        import asyncio, ssl, sys
        port, cafile = int(sys.argv[1]), sys.argv[2]
        context = ssl.create_default_context(cafile=cafile)
        context.set_alpn_protocols(["http/1.1"])
        try:
            import websockets
        except ImportError:
            websockets = None

        async def with_websockets():
            async with websockets.connect(f"wss://localhost:{port}/v1/echo", ssl=context,
                                          subprotocols=["switchboard.v1"], max_size=None) as ws:
                for message in ["hello over tls", "x" * 70000]:
                    await ws.send(message)
                    assert await ws.recv() == message
                print("ok websockets", ws.transport.get_extra_info("ssl_object").version())

        def with_stdlib():
            import base64, os, socket, struct
            raw = socket.create_connection(("127.0.0.1", port))
            s = context.wrap_socket(raw, server_hostname="localhost")
            key = base64.b64encode(os.urandom(16)).decode()
            s.sendall(("GET /v1/echo HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                head += s.recv(1)
            assert head.startswith(b"HTTP/1.1 101"), head
            payload = b"hello over tls"
            mask = os.urandom(4)
            s.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
            frame = s.recv(2 + len(payload))
            assert frame[2:] == payload, frame
            print("ok stdlib", s.version())

        if websockets:
            asyncio.run(with_websockets())
        else:
            with_stdlib()
        """#

    @Test func wssEchoWithAnIndependentClient() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-tls-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path
        let key = directory.appendingPathComponent("key.pem").path
        let openssl = try #require(
            ExternalProcess.which("openssl"), "the openssl command is needed to make a test certificate")
        let generated = try ExternalProcess.run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            ])
        try #require(generated.status == 0, "openssl req failed: \(generated.output)")

        let running = try RunningServer {
            $0.tlsListen = [SocketAddress(host: "127.0.0.1", port: 0, family: .inet)]
            $0.tlsCertificate = cert
            $0.tlsPrivateKey = key
        }
        defer { running.stop() }
        let tlsPort = try #require(running.tlsPort)

        let script = directory.appendingPathComponent("client.py").path
        try Self.clientScript.write(toFile: script, atomically: true, encoding: .utf8)
        let python = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_PYTHON"] ?? ExternalProcess.which("python3")
        let interpreter = try #require(python, "python3 is needed for the independent TLS client")
        let result = try ExternalProcess.run(interpreter, [script, String(tlsPort), cert])
        #expect(result.status == 0, "client output: \(result.output)")
        #expect(result.output.contains("ok "), "client output: \(result.output)")
        #expect(result.output.contains("TLSv1.3"), "client output: \(result.output)")

        // The plain listener keeps working beside the TLS one.
        let plain = try RawClient(port: running.port)
        plain.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(plain.readHead().hasPrefix("HTTP/1.1 200 "))
    }
}
