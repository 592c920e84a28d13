import SwitchboardSystem

/// One TCP connection to the server, owned by the client's thread: a
/// non-blocking socket, connected in the background (the thread waits for it
/// in poll, where `stop` can reach it), closed when the link is released.
final class NATSLink {
    let fd: Int32

    /// Starts connecting; poll the socket for writable, then `finishConnect`.
    init(connectingTo address: SocketAddress) throws(NATSError) {
        do {
            fd = try Socket.connect(to: address)
        } catch {
            throw NATSError(kind: .connection, message: error.description)
        }
        // PINGs, PONGs and single publications must leave at once, not wait for Nagle.
        Socket.setNoDelay(fd)
    }

    deinit { Posix.close(fd) }

    func finishConnect() throws(NATSError) {
        do {
            try Socket.finishConnect(fd)
        } catch {
            throw NATSError(kind: .connection, message: error.description)
        }
    }

    /// Reads what has arrived into `buffer` (up to its count); 0 when nothing
    /// has. The server closing its end is an error: a NATS server never does
    /// that to a client it keeps serving.
    func read(into buffer: inout [UInt8]) throws(NATSError) -> Int {
        let fd = fd
        let result = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in try Posix.read(fd, into: raw) }
        }
        switch result {
        case .success(.processed(0)): throw NATSError(kind: .connection, message: "the server closed the connection")
        case .success(.processed(let count)): return count
        case .success(.wouldBlock): return 0
        case .failure(let error): throw NATSError(kind: .connection, message: error.description)
        }
    }

    /// Writes as much of `bytes` as the socket takes; 0 when it is full.
    func send(_ bytes: ArraySlice<UInt8>) throws(NATSError) -> Int {
        let fd = fd
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(SystemError) in try Socket.send(fd, raw) }
        }
        switch result {
        case .success(.processed(let count)): return count
        case .success(.wouldBlock): return 0
        case .failure(let error): throw NATSError(kind: .connection, message: error.description)
        }
    }
}
