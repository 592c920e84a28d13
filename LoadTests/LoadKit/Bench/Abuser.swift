import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// One abusive client address: a connection flood that is also a slow-loris.
///
/// From `source` (a loopback address other than the harness's), new
/// connections are opened at `rate` per second, each sending a request head
/// one byte every `dripSeconds` and never finishing it. The gateway refuses
/// most at accept (429: over the address's connection limit or its rate); the
/// ones it holds stay until its header timeout. Every answer is read and the
/// socket closed when the gateway closes it, so the flood never runs out of
/// descriptors on its side.
///
/// With `alternateSeconds` > 0 it attacks only in the B windows of that many
/// seconds on the wall clock (`AlternatingWindows`) and closes everything it
/// holds when an A window begins, so that `loadtest --alternate S` compares
/// the A windows (no abuser) with the B ones within one run.
struct Abuser {
    var port: UInt16
    var seconds: Double
    var source = "127.0.0.2"
    var rate = 1000.0
    var dripSeconds = 5.0
    var alternateSeconds = 0.0
    var maxOpen = 4000

    static let head =
        Array("GET /healthz HTTP/1.1\r\nHost: abuser\r\nX-Padding: ".utf8) + [UInt8](repeating: 0x78, count: 64)

    init(port: UInt16, seconds: Double) {
        self.port = port
        self.seconds = seconds
    }

    private struct Attempt {
        var sent = 0
        var nextDrip: Double
        var answer: [UInt8] = []
    }

    /// Whether the flood is on at wall-clock instant `wall` (ns since the epoch).
    func attacking(atWall wall: UInt64) -> Bool {
        alternateSeconds <= 0
            || AlternatingWindows.side(ofWall: wall, windowNanoseconds: UInt64(alternateSeconds * 1e9)) == .b
    }

    /// Floods for `seconds` and returns what happened.
    func run() throws(SystemError) -> AbuserCounts {
        let epfd = try Epoll.create()
        defer { Posix.close(epfd) }
        let events = EpollEvents(capacity: 256)
        var counts = AbuserCounts()
        var open: [Int32: Attempt] = [:]
        var buffer = [UInt8](repeating: 0, count: 4096)
        let start = Self.now()
        var nextOpen = start

        func finish(_ fd: Int32) {
            guard let attempt = open.removeValue(forKey: fd) else { return }
            counts.count(answer: attempt.answer)
            Epoll.remove(epfd, fd: fd)
            Posix.close(fd)
        }

        while true {
            let now = Self.now()
            if now >= start + seconds { break }
            if !attacking(atWall: UInt64(UnixClock.nowMicroseconds()) * 1000) {
                // A window without the abuser: nothing of it stays open, and nothing is owed.
                for fd in open.keys {
                    Epoll.remove(epfd, fd: fd)
                    Posix.close(fd)
                    counts.closedAtWindowEnd += 1
                }
                open.removeAll()
                nextOpen = now
                ThisProcess.sleep(milliseconds: 10)
                continue
            }
            while nextOpen <= now {
                nextOpen += 1 / rate
                if open.count >= maxOpen {
                    counts.skippedAtMaxOpen += 1
                    continue
                }
                counts.attempts += 1
                guard let fd = connectFrom() else {
                    counts.connectFailed += 1
                    continue
                }
                do {
                    try Epoll.add(epfd, fd: fd, events: Epoll.readable, data: UInt64(UInt32(bitPattern: fd)))
                } catch {
                    Posix.close(fd)
                    counts.connectFailed += 1
                    continue
                }
                open[fd] = Attempt(nextDrip: now)
            }
            // The drip: one more byte of the head from every held connection that is due.
            for fd in Array(open.keys) {
                guard var attempt = open[fd], attempt.nextDrip <= now, attempt.sent < Self.head.count else { continue }
                let sent = Self.head.withUnsafeBufferPointer {
                    send(fd, $0.baseAddress! + attempt.sent, 1, Int32(MSG_NOSIGNAL))
                }
                if sent == 1 {
                    attempt.sent += 1
                } else if errno != EAGAIN && errno != EINTR {
                    finish(fd)
                    continue
                }
                attempt.nextDrip = now + dripSeconds
                open[fd] = attempt
            }
            counts.maxHeld = max(counts.maxHeld, open.count)
            let timeout = max(0, min(nextOpen, start + seconds) - Self.now())
            let ready = try Epoll.wait(
                epfd, into: events, timeoutMilliseconds: Int32((min(timeout, 0.05) * 1000).rounded(.up)))
            for index in 0..<ready {
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: events[index].data))
                guard open[fd] != nil else { continue }
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 {
                    let room = 64 - open[fd]!.answer.count
                    if room > 0 { open[fd]!.answer += buffer[0..<min(n, room)] }
                } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                    finish(fd)
                }
            }
        }
        counts.heldAtEnd = open.count
        for fd in open.keys { Posix.close(fd) }
        counts.seconds = Self.now() - start
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        counts.cpuSeconds =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return counts
    }

    /// A non-blocking connect from `source` to the gateway, or nil when it failed at once.
    private func connectFrom() -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard let from = ClientSocket.ipv4Address(source), let to = ClientSocket.ipv4Address("127.0.0.1") else {
            Posix.close(fd)
            return nil
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr = from
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr = to
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        let connected =
            bound == 0
            ? withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) }
            }
            : -1
        if bound != 0 || (connected != 0 && errno != EINPROGRESS) {
            Posix.close(fd)
            return nil
        }
        return fd
    }

    private static func now() -> Double { Double(MonotonicClock.nanoseconds()) / 1e9 }
}
