import SwitchboardTLSTestSupport

@testable import SwitchboardTLS

/// A server `TLSConnection` wired to a `TLSClientForTesting` by shuttling ciphertext in memory, the way
/// the event loop would through a socket: drain one side, deliver to the other, read, repeat.
final class TLSPair {
    let server: TLSConnection
    let client: TLSClientForTesting
    /// Plaintext each side has decrypted so far.
    var serverReceived: [UInt8] = []
    var clientReceived: [UInt8] = []
    var serverSawClose = false
    var clientSawClose = false

    init(context: TLSContext, client: TLSClientForTesting) throws {
        self.server = try TLSConnection(context: context)
        self.client = client
        try client.startHandshake()
    }

    /// Moves ciphertext both ways until neither side has anything left to send. `chunkSize` caps how many
    /// bytes one delivery carries (1 simulates a socket that reads a byte at a time); each delivery is
    /// followed by a read, so the receiver works on partial records.
    func pump(chunkSize: Int = .max, maxRounds: Int = 1_000_000) throws {
        var rounds = 0
        while client.hasPendingCiphertext || server.hasPendingCiphertext {
            rounds += 1
            precondition(rounds <= maxRounds, "pump made no progress")
            try deliverClientToServer(chunkSize: chunkSize)
            try deliverServerToClient(chunkSize: chunkSize)
        }
    }

    /// Drains the client in pieces of at most `chunkSize`, reading on the server after each piece.
    func deliverClientToServer(chunkSize: Int = .max) throws(TLSError) {
        var failure: TLSError?
        while failure == nil {
            let done = client.drainCiphertext { chunk in
                let piece = UnsafeRawBufferPointer(rebasing: chunk.prefix(chunkSize))
                server.receiveCiphertext(piece)
                do throws(TLSError) {
                    try readAll(server.readPlaintext, into: &serverReceived, closed: &serverSawClose)
                } catch { failure = error }
                return piece.count
            }
            if done { break }
        }
        if let failure { throw failure }
    }

    /// Drains the server in pieces of at most `chunkSize`, reading on the client after each piece.
    func deliverServerToClient(chunkSize: Int = .max) throws(TLSError) {
        var failure: TLSError?
        while failure == nil {
            let done = server.drainCiphertext { chunk in
                let piece = UnsafeRawBufferPointer(rebasing: chunk.prefix(chunkSize))
                client.receiveCiphertext(piece)
                do throws(TLSError) {
                    try readAll(client.readPlaintext, into: &clientReceived, closed: &clientSawClose)
                } catch { failure = error }
                return piece.count
            }
            if done { break }
        }
        if let failure { throw failure }
    }

    private func readAll(
        _ read: (UnsafeMutableRawBufferPointer) throws(TLSError) -> TLSReadResult, into received: inout [UInt8],
        closed: inout Bool
    ) throws(TLSError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            switch try read(buffer) {
            case .bytes(let count): received.append(contentsOf: buffer.prefix(count))
            case .wantMoreCiphertext: return
            case .closed:
                closed = true
                return
            }
        }
    }
}

extension TLSConnection {
    func write(_ bytes: [UInt8]) throws -> Int {
        try bytes.withUnsafeBytes { try writePlaintext($0) }
    }
}

extension TLSClientForTesting {
    func write(_ bytes: [UInt8]) throws -> Int {
        try bytes.withUnsafeBytes { try writePlaintext($0) }
    }
}
