// libFuzzer target for the WebSocket frame layer. Built with
// `-sanitize=fuzzer,address -parse-as-library`, so this file holds declarations only.
import SwitchboardDeflate
import SwitchboardWebSocket

/// Feeds the input, cut into two reads at a point chosen by the first byte, to
/// sessions with and without permessage-deflate, echoing every message back
/// through `encodeMessage` so the compressor runs too. Any crash, sanitizer
/// report or violated expectation is a bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard count > 0 else { return 0 }
    let input = UnsafeBufferPointer(start: start, count: count)
    let body = Array(input.dropFirst())
    let cut = body.isEmpty ? 0 : Int(input[0]) % (body.count + 1)

    let variants: [DeflateParameters?] = [
        nil,
        DeflateParameters(),
        DeflateParameters(
            serverNoContextTakeover: true, clientNoContextTakeover: true, serverMaxWindowBits: 8, clientMaxWindowBits: 9
        ),
    ]
    for deflate in variants {
        let session = WebSocketSession(
            configuration: WebSocketConfiguration(maxMessageBytes: 4096, maxFrameBytes: 2048), deflate: deflate,
            deflateConfiguration: DeflateConfiguration(minimumCompressSize: 16))
        for range in [0..<cut, cut..<body.count] {
            // A fresh copy: receive unmasks in place.
            var read = Array(body[range])
            _ = read.withUnsafeMutableBytes { raw in
                session.receive(
                    raw,
                    onMessage: { opcode, payload in
                        precondition(opcode == .text || opcode == .binary, "only data messages are delivered")
                        precondition(payload.count <= 4096, "message limit not enforced")
                        if opcode == .text { precondition(UTF8Validator.isValid(payload), "invalid UTF-8 delivered") }
                        _ = session.encodeMessage(opcode: opcode, payload: payload)
                    },
                    send: { bytes in
                        precondition(bytes.count >= 2 && bytes.count <= 127, "unexpected control frame size")
                    })
            }
        }
    }
    return 0
}
