import SwitchboardLoop
import SwitchboardTLS

/// Lets the loop drive an OpenSSL session without importing OpenSSL.
final class TLSCipher: StreamCipher {
    private let tls: TLSConnection

    init(context: TLSContext) throws {
        tls = try TLSConnection(context: context)
    }

    func receiveCiphertext(_ bytes: UnsafeRawBufferPointer) {
        tls.receiveCiphertext(bytes)
    }

    func readPlaintext(into buffer: UnsafeMutableRawBufferPointer) throws -> CipherRead {
        switch try tls.readPlaintext(into: buffer) {
        case .bytes(let n): return .bytes(n)
        case .wantMoreCiphertext: return .wantMoreCiphertext
        case .closed: return .closed
        }
    }

    func writePlaintext(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let n = try tls.writePlaintext(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            precondition(n > 0, "TLSConnection.writePlaintext must take bytes or throw")
            offset += n
        }
    }

    func drainCiphertext(_ body: (UnsafeRawBufferPointer) -> Void) {
        _ = tls.drainCiphertext { chunk in
            body(chunk)
            return chunk.count
        }
    }

    func shutdown() {
        tls.shutdown()
    }
}
