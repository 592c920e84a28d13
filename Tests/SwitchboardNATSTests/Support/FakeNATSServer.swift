import Foundation
import SwitchboardSystem

/// A scripted stand-in for nats-server on 127.0.0.1: the test accepts the
/// client's connections and writes and reads protocol text itself, to check
/// the bytes the client sends and to misbehave on purpose (never answer
/// PINGs, never send INFO, send garbage).
final class FakeNATSServer {
    let listener: Int32
    let port: UInt16

    init() throws {
        listener = try Socket.listen(
            on: SocketAddress(host: "127.0.0.1", port: 0, family: .inet), reusePort: false, backlog: 8)
        port = Socket.localPort(listener)!
    }

    deinit { Posix.close(listener) }

    var url: String { "nats://127.0.0.1:\(port)" }

    /// The client's next connection.
    func accept(timeout: Double = 10) throws -> FakeConnection {
        let deadline = Date().addingTimeInterval(timeout)
        var poll = PollSet([listener])
        while Date() < deadline {
            _ = try poll.wait(timeoutMilliseconds: 50)
            if case .processed(let fd) = try Socket.accept(listener) { return FakeConnection(fd: fd) }
        }
        throw TestFailure("the client did not connect within \(timeout) s")
    }
}

/// One accepted connection: everything received is kept as text.
final class FakeConnection {
    let fd: Int32
    private(set) var received = ""
    private(set) var closedByClient = false

    init(fd: Int32) { self.fd = fd }
    deinit { Posix.close(fd) }

    func send(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let result = try bytes.withUnsafeBytes { try Posix.write(fd, $0) }
            if case .processed(let count) = result {
                bytes = bytes.dropFirst(count)
            } else {
                Thread.sleep(forTimeInterval: 0.001)
            }
        }
    }

    /// Reads until `received` contains `text` (or the client closed); returns whether it does.
    @discardableResult
    func read(until text: String, timeout: Double = 10) throws -> Bool {
        try read(timeout: timeout) { $0.received.contains(text) }
        return received.contains(text)
    }

    /// Reads until the client closes the connection; returns whether it did.
    func readUntilClosed(timeout: Double) throws -> Bool {
        try read(timeout: timeout) { $0.closedByClient }
        return closedByClient
    }

    private func read(timeout: Double, until done: (FakeConnection) -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var poll = PollSet([fd])
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !done(self) && !closedByClient && Date() < deadline {
            _ = try poll.wait(timeoutMilliseconds: 20)
            let result: IOResult<Int>
            do {
                result = try chunk.withUnsafeMutableBytes { try Posix.read(fd, into: $0) }
            } catch {
                closedByClient = true  // a reset
                return
            }
            switch result {
            case .processed(0): closedByClient = true
            case .processed(let count): received += String(decoding: chunk[..<count], as: UTF8.self)
            case .wouldBlock: break
            }
        }
    }
}
