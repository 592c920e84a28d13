import Foundation
import SwitchboardEmbedded

/// A client of an `EmbeddedGateway`, playing the peer of one in-memory
/// connection. Sending runs the handler at once; reading runs the gateway's
/// loops until the bytes are there or the gateway has closed, waiting (up to
/// `timeoutSeconds`, as a socket's read would) only for the database threads:
/// without a database nothing else can write, so an idle read returns at once.
/// Time does not pass while it waits: deadlines fire through `advance`.
final class EmbeddedClient: ClientStream {
    let connection: EmbeddedConnection
    private let gateway: EmbeddedGateway
    /// Written by the gateway; read up to `position`.
    private var unread: [UInt8] = []
    private var position = 0
    private let timeoutSeconds: Int

    init(_ connection: EmbeddedConnection, of gateway: EmbeddedGateway, timeoutSeconds: Int) {
        self.connection = connection
        self.gateway = gateway
        self.timeoutSeconds = timeoutSeconds
    }

    func send(_ bytes: [UInt8]) { connection.receive(bytes) }

    func shutdownWrite() { connection.peerClose() }

    /// Bytes the gateway has written and the test not yet read, without waiting.
    var available: Int {
        collect()
        return unread.count - position
    }

    /// The gateway has closed (or is closing) its side and everything was read: EOF.
    var isAtEnd: Bool { available == 0 && !connection.isOpen }

    func read(count: Int) -> [UInt8] {
        var out: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        while out.count < count {
            collect()
            if position < unread.count {
                let n = min(count - out.count, unread.count - position)
                out += unread[position..<position + n]
                position += n
                continue
            }
            if !connection.isOpen { break }
            if gateway.runPending() { continue }
            if !gateway.hasDatabaseThreads || ContinuousClock.now >= deadline { break }
            usleep(200)  // a database thread is still to answer
        }
        return out
    }

    func readHead() -> String {
        var out: [UInt8] = []
        while !out.ends(with: [13, 10, 13, 10]) {
            let byte = read(count: 1)
            if byte.isEmpty { break }
            out += byte
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The frames already written, without waiting for more.
    func framesWritten() -> [(opcode: UInt8, payload: [UInt8])] {
        var frames: [(opcode: UInt8, payload: [UInt8])] = []
        while available > 0, let frame = readFrame() { frames.append(frame) }
        return frames
    }

    private func collect() {
        guard connection.hasOutbound else { return }
        if position == unread.count {
            unread = connection.takeOutbound()
            position = 0
        } else {
            unread += connection.takeOutbound()
        }
    }
}
