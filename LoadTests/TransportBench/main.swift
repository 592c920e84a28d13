import CSystem
import LoadKit
import SwitchboardJSON
import SwitchboardSystem
import SwitchboardWebSocket

#if canImport(Glibc)
import Glibc
#endif

// transport-bench: measures a WebSocket echo server from outside.
//
//   transport-bench echo --port P --pid PID [--connections 50] [--payload 64] [--seconds 10] [--rate R]
//     Each connection sends one masked text frame and waits for its echo,
//     for the given time after a one-second warm-up. Without --rate the loop
//     is closed (send again as soon as the echo arrives: the server's
//     saturated cost); with --rate the connections together send R messages
//     per second, spread evenly (each still waits for its echo), which is how
//     a chat gateway is actually loaded. Reports round trips per second and the
//     server's CPU time per round trip from /proc/PID/stat (user + system).
//   transport-bench idle --port P --pid PID [--connections 10000]
//     Opens and upgrades the connections, holds them, and reports the growth
//     of the server's resident memory per connection (/proc/PID/status VmRSS).
//
// Each run prints one JSON object on a line (docs/benchmarks.md, "Output formats").

struct Options {
    var mode = ""
    var port: UInt16 = 8080
    var pid: Int32 = 0
    var connections = 50
    var payload = 64
    var seconds = 10.0
    var path = "/v1/echo"
    var label = "server"
    /// Total messages per second across all connections; 0 = closed loop.
    var rate = 0.0

    init(_ arguments: [String]) {
        guard arguments.count > 1 else { Self.usage() }
        mode = arguments[1]
        if mode != "echo" && mode != "idle" { Self.usage("unknown mode \(mode)") }
        var sawPID = false
        var i = 2
        while i < arguments.count {
            let name = arguments[i]
            guard i + 1 < arguments.count else { Self.usage("\(name) needs a value") }
            let value = arguments[i + 1]
            switch name {
            case "--port": port = Self.parse(name, value, as: UInt16.self, in: 1...65535)
            case "--pid":
                pid = Self.parse(name, value, as: Int32.self, in: 1...Int32.max)
                sawPID = true
            case "--connections": connections = Self.parse(name, value, as: Int.self, in: 1...1_000_000)
            case "--payload": payload = Self.parse(name, value, as: Int.self, in: 0...Int(UInt16.max))
            case "--seconds": seconds = Self.parse(name, value, as: Double.self, in: 0.1...86_400)
            case "--rate": rate = Self.parse(name, value, as: Double.self, in: 0...1e9)
            case "--path":
                guard value.hasPrefix("/"), !value.contains(where: { $0.isWhitespace }) else {
                    Self.usage("--path must be an absolute path without spaces, not \(value)")
                }
                path = value
            case "--label":
                guard !value.isEmpty, !value.contains(where: { $0.isWhitespace }) else {
                    Self.usage("--label must be one word (it keys the report's rows)")
                }
                label = value
            default: Self.usage("unknown option \(name)")
            }
            i += 2
        }
        if !sawPID { Self.usage("--pid is required: the server's CPU time and memory are read from /proc") }
    }

    private static func parse<Value: LosslessStringConvertible & Comparable>(
        _ name: String, _ text: String, as: Value.Type, in range: ClosedRange<Value>
    ) -> Value {
        guard let value = Value(text), range.contains(value) else {
            usage("\(name) must be a number in \(range.lowerBound)...\(range.upperBound), not \(text)")
        }
        return value
    }

    static func usage(_ problem: String? = nil) -> Never {
        if let problem { printError("transport-bench: \(problem)") }
        printError(
            "usage: transport-bench echo|idle --port P --pid PID [--connections N] [--payload B] [--seconds S] [--rate R] [--path P] [--label L]"
        )
        exit(2)
    }
}

func printError(_ line: String) {
    let text = line + "\n"
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

func fail(_ message: String) -> Never {
    printError("transport-bench: \(message)")
    exit(1)
}

func monotonicSeconds() -> Double {
    Double(MonotonicClock.nanoseconds()) / 1e9
}

/// The server's user + system CPU seconds.
func serverCPUSeconds(_ pid: Int32) -> Double {
    guard let seconds = GatewayProbe(pid: pid).cpuSeconds() else { fail("cannot read /proc/\(pid)/stat") }
    return seconds
}

func serverRSSKiB(_ pid: Int32) -> Int {
    guard let kib = GatewayProbe(pid: pid).residentKiB() else { fail("cannot read VmRSS of process \(pid)") }
    return kib
}

/// Connects and completes the WebSocket upgrade, blocking; returns a non-blocking fd.
func openWebSocket(port: UInt16, path: String) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = port.bigEndian
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    if rc != 0 { fail("connect: errno \(errno)") }
    Socket.setNoDelay(fd)
    let key = "dGhlIHNhbXBsZSBub25jZQ=="
    let request =
        "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
    _ = request.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count - 1) }
    var head: [UInt8] = []
    var byte: UInt8 = 0
    while !(head.count >= 4 && head[head.count - 4..<head.count].elementsEqual([13, 10, 13, 10])) {
        guard read(fd, &byte, 1) == 1 else { fail("upgrade: connection closed") }
        head.append(byte)
    }
    let response = String(decoding: head, as: UTF8.self)
    guard response.hasPrefix("HTTP/1.1 101") else { fail("upgrade refused: \(response)") }
    guard WebSocketHandshake.responseAccepts(response, key: key) else {
        fail("upgrade without the right Sec-WebSocket-Accept: \(response)")
    }
    try? Posix.setNonBlocking(fd)
    return fd
}

func runEcho(_ options: Options) {
    let frame = FrameEncoder.encode(
        opcode: .text, payload: [UInt8](repeating: UInt8(ascii: "a"), count: options.payload), maskKey: 0x4433_2211)
    // The echo comes back unmasked, with the same length.
    let echoLength = FrameEncoder.headerLength(payloadLength: options.payload) + options.payload
    let epfd = epoll_create1(0)
    var fds: [Int32] = []
    var pending = [Int](repeating: 0, count: options.connections)
    for index in 0..<options.connections {
        let fd = openWebSocket(port: options.port, path: options.path)
        fds.append(fd)
        var event = epoll_event()
        event.events = UInt32(EPOLLIN.rawValue)
        event.data.u64 = UInt64(index)
        epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event)
    }
    // Paced: connection i may send at start + k * interval (offset by i), and only after its last echo.
    let paced = options.rate > 0
    let interval = paced ? Double(options.connections) / options.rate : 0
    let start = monotonicSeconds()
    var nextSend = (0..<options.connections).map { start + interval * Double($0) / Double(options.connections) }
    var awaiting = [Bool](repeating: false, count: options.connections)
    func send(_ index: Int) {
        // One frame per connection is in flight, so it always fits the socket
        // buffer; a short write would stall that connection silently.
        let written = frame.withUnsafeBytes { write(fds[index], $0.baseAddress, $0.count) }
        if written != frame.count {
            fail("connection \(index): wrote \(written) of \(frame.count) bytes (errno \(errno))")
        }
        awaiting[index] = true
        if paced { nextSend[index] += interval }
    }
    if !paced { for index in 0..<options.connections { send(index) } }
    var events = [epoll_event](repeating: epoll_event(), count: 256)
    var buffer = [UInt8](repeating: 0, count: 65536)
    var roundTrips = 0
    let warmUpEnd = start + 1
    var measuring = false
    var startCPU = 0.0
    var startTime = 0.0
    var endTime = 0.0
    while true {
        var timeout: Int32 = 1000
        if paced {
            let now = monotonicSeconds()
            for index in 0..<options.connections where !awaiting[index] && nextSend[index] <= now { send(index) }
            let soonest = zip(nextSend, awaiting).filter { !$0.1 }.map(\.0).min() ?? now + 0.001
            timeout = Int32(max(0, min(1000, (soonest - now) * 1000)))
        }
        let n = epoll_wait(epfd, &events, Int32(events.count), timeout)
        if n < 0 && errno == EINTR { continue }
        for i in 0..<Int(max(n, 0)) {
            let index = Int(events[i].data.u64)
            let got = read(fds[index], &buffer, buffer.count)
            if got <= 0 { fail("connection \(index) closed by the server") }
            pending[index] += got
            while pending[index] >= echoLength {
                pending[index] -= echoLength
                roundTrips += 1
                awaiting[index] = false
                if !paced { send(index) }
            }
        }
        let now = monotonicSeconds()
        if !measuring && now >= warmUpEnd {
            measuring = true
            roundTrips = 0
            startCPU = serverCPUSeconds(options.pid)
            startTime = now
        } else if measuring && now - startTime >= options.seconds {
            endTime = now
            break
        }
    }
    let cpu = serverCPUSeconds(options.pid) - startCPU
    let elapsed = endTime - startTime
    let rate = Double(roundTrips) / elapsed
    let microseconds = cpu / Double(roundTrips) * 1e6
    // One JSON object per line (docs/benchmarks.md, "Output formats"); "offered" 0 is the closed loop.
    let line: JSONValue = [
        "kind": "echo", "label": .string(options.label), "connections": .int(options.connections),
        "payload": .int(options.payload), "offered": .int(paced ? Int(options.rate) : 0),
        "seconds": .double(rounded(elapsed)), "round_trips": .int(roundTrips), "round_trips_per_s": .int(Int(rate)),
        "server_cpu_s": .double(rounded(cpu)), "server_cpu_us_per_round_trip": .double(rounded(microseconds)),
    ]
    print(line.text)
    for fd in fds { close(fd) }
}

func runIdle(_ options: Options) {
    let before = serverRSSKiB(options.pid)
    var fds: [Int32] = []
    fds.reserveCapacity(options.connections)
    for _ in 0..<options.connections {
        fds.append(openWebSocket(port: options.port, path: options.path))
    }
    // Let the server settle (lazy frees, allocator caches) before reading.
    usleep(1_500_000)
    let after = serverRSSKiB(options.pid)
    let perConnection = Double(after - before) * 1024 / Double(options.connections)
    let line: JSONValue = [
        "kind": "idle", "label": .string(options.label), "connections": .int(options.connections),
        "rss_before_kib": .int(before), "rss_after_kib": .int(after), "bytes_per_connection": .int(Int(perConnection)),
    ]
    print(line.text)
    for fd in fds { close(fd) }
}

/// Two decimals are all a figure here carries.
func rounded(_ value: Double) -> Double {
    value.isFinite ? (value * 100).rounded() / 100 : 0
}

_ = Posix.raiseOpenFileLimit()
let options = Options(CommandLine.arguments)
if options.mode == "echo" { runEcho(options) } else { runIdle(options) }
