// hb-echo: WebSocket echo server used as a comparison peer by scripts/bench-transport.
//
//   hb-echo --port P [--host 127.0.0.1]
//
// GET /v1/echo upgrades to WebSocket and sends every text or binary message back
// unchanged. No compression extension, no automatic pings. Text messages are checked
// for valid UTF-8, as RFC 6455 requires (the gateway does the same). Prints
// "hb-echo listening on HOST:PORT" on stdout once it accepts connections.
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: hb-echo --port PORT [--host HOST]\n".utf8))
    exit(2)
}

func parseArguments() -> (host: String, port: Int) {
    var host = "127.0.0.1"
    var port: Int?
    var args = CommandLine.arguments.dropFirst()
    while let arg = args.popFirst() {
        switch arg {
        case "--port", "-p":
            guard let value = args.popFirst(), let p = Int(value), (0...65535).contains(p) else { usage() }
            port = p
        case "--host":
            guard let value = args.popFirst() else { usage() }
            host = value
        default:
            usage()
        }
    }
    guard let port else { usage() }
    return (host, port)
}

let (host, port) = parseArguments()

/// Largest message echoed (and largest frame accepted): 16 MiB.
let maxMessage = 16 << 20

var logger = Logger(label: "hb-echo")
logger.logLevel = .warning

let router = Router()
router.get("/healthz") { _, _ in "ok" }

let app = Application(
    router: router,
    server: .http1WebSocketUpgrade(
        configuration: .init(
            ws: .init(maxFrameSize: maxMessage, extensions: [], autoPing: .disabled, validateUTF8: true)
        )
    ) { [maxMessage] request, _, _ in
        guard request.path == "/v1/echo" else { return .dontUpgrade }
        return .upgrade([:]) { [maxMessage] inbound, outbound, _ in
            for try await message in inbound.messages(maxSize: maxMessage) {
                switch message {
                case .text(let text): try await outbound.write(.text(text))
                case .binary(let bytes): try await outbound.write(.binary(bytes))
                }
            }
        }
    },
    configuration: .init(address: .hostname(host, port: port), serverName: "hb-echo"),
    onServerRunning: { [host, port] channel in
        let address = channel.localAddress.map { "\($0.ipAddress ?? host):\($0.port ?? port)" } ?? "\(host):\(port)"
        FileHandle.standardOutput.write(Data("hb-echo listening on \(address)\n".utf8))
    },
    logger: logger
)

try await app.runService()
