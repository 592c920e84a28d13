import Foundation
import SwitchboardWebhookDelivery
import SwitchboardWebhooks
import Testing

/// HTTPS against an independent server (Python's http.server behind its ssl
/// module, with a certificate made here): the certificate is checked, and a
/// kept-alive TLS connection carries the next requests.
@Suite(
    .enabled(
        if: ExternalProgram.which("python3") != nil && ExternalProgram.which("openssl") != nil,
        "needs python3 and openssl on PATH"))
struct HTTPSReceiverTests {
    /// Answers each POST with "<connections accepted so far> <body bytes>".
    static let server = """
        import http.server, ssl, sys
        accepted = 0
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def setup(self):
                global accepted
                accepted += 1
                super().setup()
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                answer = f"{accepted} {len(body)}".encode()
                self.send_response(200)
                self.send_header("content-length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
            def log_message(self, *args):
                pass
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(sys.argv[1], sys.argv[2])
        server.socket = context.wrap_socket(server.socket, server_side=True)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    final class RunningServer {
        let process = Process()
        let port: Int
        let certificate: String
        let folder: URL

        init() throws {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-https-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            certificate = folder.appendingPathComponent("cert.pem").path
            let key = folder.appendingPathComponent("key.pem").path
            let generated = try ExternalProgram.run(
                ExternalProgram.which("openssl")!,
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                    key, "-out", certificate, "-days", "1", "-subj", "/CN=localhost", "-addext",
                    "subjectAltName=IP:127.0.0.1",
                ])
            try #require(generated.status == 0, "openssl req failed: \(generated.errors)")
            let script = folder.appendingPathComponent("server.py")
            try HTTPSReceiverTests.server.write(to: script, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: ExternalProgram.which("python3")!)
            process.arguments = [script.path, certificate, key]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let more = output.fileHandleForReading.availableData
                if more.isEmpty { break }
                line += more
            }
            port = try #require(
                Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        }

        func stop() {
            // SIGKILL: the child inherits the test thread's signal mask, in which SIGTERM may be blocked.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    func post(_ port: Int) -> WebhookHTTPRequest {
        WebhookHTTPRequest(url: "https://127.0.0.1:\(port)/hook", headers: [], body: #"{"n":1}"#)
    }

    @Test func deliversOverHTTPSAndKeepsTheTLSConnection() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let client = try WebhookHTTPClient(
            settings: .init(allowPrivateTargets: true, trustedCertificatesPath: server.certificate))
        let responses = (0..<3).map { _ in client.send(post(server.port)) }
        #expect(responses.map(\.statusCode) == [200, 200, 200], "\(responses.map(\.error))")
        #expect(responses.map(\.responseHead) == ["1 7", "1 7", "1 7"])
        #expect(responses.map(\.newConnections) == [1, 0, 0])
    }

    @Test func refusesACertificateItCannotVerify() throws {
        let server = try RunningServer()
        defer { server.stop() }
        let client = try WebhookHTTPClient(settings: .init(allowPrivateTargets: true))
        let response = client.send(post(server.port))
        #expect(response.statusCode == nil)
        guard case .tls(let message) = response.error else {
            Issue.record("expected a TLS error, got \(String(describing: response.error))")
            return
        }
        #expect(message.contains("certificate"), "\(message)")
        #expect(response.result.failure == .tlsError)
    }
}
