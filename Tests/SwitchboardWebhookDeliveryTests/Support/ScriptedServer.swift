import SwitchboardSystem
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A server on 127.0.0.1 that answers each request with bytes the test
/// wrote, exactly, framing mistakes included: what the HTTP client must cope
/// with that a well-behaved receiver never sends. One thread serves the
/// connections one after another; after `answersPerConnection` answers (or
/// the script's end) it closes the connection.
final class ScriptedServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = Mutex<(accepted: Int, requests: [String], stopping: Bool)>((0, [], false))
    private let thread = Mutex<NamedThread?>(nil)

    var acceptedConnections: Int { state.withLock { $0.accepted } }
    /// Each request's first line, in order.
    var requestLines: [String] { state.withLock { $0.requests } }

    init(answers: [String], answersPerConnection: Int = .max) throws {
        listener = try Socket.listen(
            on: SocketAddress(host: "127.0.0.1", port: 0, family: .inet), reusePort: false, backlog: 16)
        port = Socket.localPort(listener)!
        let script = answers.map { Array($0.utf8) }
        thread.withLock { [self] in
            $0 = NamedThread.spawn(name: "scripted") { self.serve(script, answersPerConnection) }
        }
    }

    func stop() {
        state.withLock { $0.stopping = true }
        thread.withLock { $0?.join() }
        Posix.close(listener)
    }

    private func serve(_ script: [[UInt8]], _ perConnection: Int) {
        var next = 0
        while !state.withLock({ $0.stopping }) {
            guard Self.wait(listener), case .processed(let fd)? = try? Socket.accept(listener) else { continue }
            state.withLock { $0.accepted += 1 }
            var served = 0
            var input: [UInt8] = []
            while served < perConnection && next < script.count && !state.withLock({ $0.stopping }) {
                guard let request = readRequest(fd, &input) else { break }
                state.withLock { $0.requests.append(request) }
                script[next].withUnsafeBytes { _ = Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                next += 1
                served += 1
            }
            Posix.close(fd)
        }
    }

    /// The next request's first line, once its head and body (by Content-Length) have come.
    private func readRequest(_ fd: Int32, _ input: inout [UInt8]) -> String? {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if let end = input.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                let head = String(decoding: input[..<end], as: UTF8.self)
                let length =
                    head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int(String($0.split(separator: ":")[1].filter { $0 != " " })) } ?? 0
                if input.count >= end + length {
                    input.removeFirst(end + length)
                    return head.split(separator: "\r\n").first.map(String.init) ?? ""
                }
            }
            guard Self.wait(fd) else {
                if state.withLock({ $0.stopping }) { return nil }
                continue
            }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 {
                if count < 0 && errno == EAGAIN { continue }
                return nil
            }
            input += buffer[..<count]
        }
    }

    /// Waits up to 100 ms for `fd` to be readable.
    private static func wait(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return Glibc.poll(&entry, 1, 100) > 0
    }
}
