import Foundation

/// A blocking TCP client for tests, written without the gateway's own codecs
/// so that it checks them rather than agreeing with them.
final class RawClient: ClientStream {
    let fd: Int32

    /// `source` binds the socket to that loopback address before it connects
    /// (Linux routes all of 127/8 to lo), so one test can be clients from two addresses.
    init(port: UInt16, source: String? = nil, timeoutSeconds: Int = 5, receiveBuffer: Int32? = nil) throws {
        // CLOEXEC: a process a test starts (PostgreSQL through runuser, the gateway)
        // must not inherit thousands of client sockets (runuser fails with EMFILE).
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if var size = receiveBuffer {
            // Before connect, so the window the server sees stays small (slow-reader tests).
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw TestFailure("bind to \(source) failed: errno \(errno)") }
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else { throw TestFailure("connect to port \(port) failed: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a server that closed must fail the write, not kill the test process.
            let n = bytes[offset...].withUnsafeBytes {
                Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if n <= 0 { return }
            offset += n
        }
    }

    /// Reads until `count` bytes arrived, the peer closed, or the timeout passed.
    func read(count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while out.count < count {
            let n = Foundation.read(fd, &buffer, min(buffer.count, count - out.count))
            if n <= 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    /// Reads an HTTP response head (through the blank line).
    func readHead() -> String {
        var out: [UInt8] = []
        var byte: UInt8 = 0
        while !out.ends(with: [13, 10, 13, 10]) {
            if Foundation.read(fd, &byte, 1) != 1 { break }
            out.append(byte)
        }
        return String(decoding: out, as: UTF8.self)
    }

    func shutdownWrite() { Foundation.shutdown(fd, Int32(SHUT_WR)) }

    // MARK: WebSocket, per RFC 6455, independently of the server's codec

    static func maskedFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
        let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xffff {
            frame.append(0x80 | 126)
            frame += [UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        } else {
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xff)) }
        }
        frame += mask
        for (i, b) in payload.enumerated() { frame.append(b ^ mask[i % 4]) }
        return frame
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
