import SwitchboardSystem
import Synchronization

/// N uploaders, each on a thread of its own, uploading one file after another
/// to a session of its own for a given time (`loadtest uploader`): the upload
/// load of `loadtest bench-attachments`. Each upload is one request on a new
/// connection, as a browser's widget makes it; the file is a PDF of the given
/// size (no thumbnail: the bytes' own path through the gateway and the store).
///
/// With `alternateSeconds` > 0 it uploads only in the B windows of that many
/// seconds on the wall clock (`AlternatingWindows`) and cuts (resets) every
/// upload still going when an A window begins, so that `loadtest --alternate S`
/// compares the chat with and without uploads within one run.
struct Uploader {
    var port: UInt16
    var seconds: Double
    var concurrency = 50
    var size = 100 * 1024
    var secret = ""
    var alternateSeconds = 0.0

    /// Whether this instant is one to upload in.
    private func uploading() -> Bool {
        alternateSeconds <= 0 || AlternatingWindows.sideNow(windowSeconds: alternateSeconds) == .b
    }

    /// Sessions to upload to, one per uploader (created over the chat protocol).
    func sessions(token: String) throws -> [String] {
        var ids: [String] = []
        do {
            try SeedSessionsDriver.seed(url: "ws://127.0.0.1:\(port)/v1/ws", token: token, count: concurrency) {
                ids.append($0)
            }
        } catch {
            throw DriveError("creating the uploaders' sessions: \(error.description)")
        }
        return ids
    }

    func run() throws -> UploadCounts {
        let token = HarnessRuns.token(
            role: .visitor, subject: "uploader", workspace: HarnessRuns.newWorkspace(), secret: secret)
        let ids = try sessions(token: token)
        let file = Self.pdf(size: size)
        let shared = Mutex((counts: UploadCounts(), latencies: [Double]()))
        let started = DriveClock.monotonicSeconds()
        let deadline = started + seconds
        let port = port
        let threads = ids.enumerated().map { index, session in
            NamedThread.spawn(name: "uploader-\(index)") {
                var mine = UploadCounts()
                var latencies: [Double] = []
                while DriveClock.monotonicSeconds() < deadline {
                    guard uploading() else {
                        ThisProcess.sleep(milliseconds: 10)
                        continue
                    }
                    let t0 = DriveClock.monotonicSeconds()
                    mine.uploads += 1
                    do {
                        let answer = try HTTPClient.request(
                            "POST", "/api/v1/sessions/\(session)/attachments?filename=label.pdf", port: port,
                            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/pdf")],
                            body: file, timeoutSeconds: 60, abandon: alternateSeconds > 0 ? { !uploading() } : nil)
                        switch answer.status {
                        case 201:
                            mine.created += 1
                            mine.bytesStored += file.count
                            latencies.append((DriveClock.monotonicSeconds() - t0) * 1000)
                        case 503: mine.refused503 += 1
                        case 429: mine.refused429 += 1
                        default:
                            mine.other += 1
                            if mine.firstOther.isEmpty {
                                mine.firstOther = "\(answer.status) \(answer.text.prefix(200))"
                            }
                        }
                        // A refusal says when to come back; an uploader waits a little rather than spin.
                        if answer.status == 503 || answer.status == 429 { ThisProcess.sleep(milliseconds: 50) }
                    } catch let error as DriveError where error.description == HTTPClient.abandoned {
                        mine.cut += 1
                    } catch {
                        mine.failed += 1
                        if mine.firstOther.isEmpty { mine.firstOther = "\(error)" }
                    }
                }
                shared.withLock { shared in
                    shared.counts.merge(mine)
                    shared.latencies += latencies
                }
            }
        }
        for thread in threads { thread.join() }
        return shared.withLock { shared in
            var counts = shared.counts
            counts.seconds = DriveClock.monotonicSeconds() - started
            let sorted = shared.latencies.sorted()
            counts.p50Ms = Self.percentile(sorted, 0.50)
            counts.p99Ms = Self.percentile(sorted, 0.99)
            return counts
        }
    }

    /// A file that is a PDF by its bytes (`%PDF-`), `size` bytes long.
    static func pdf(size: Int) -> [UInt8] {
        let head = Array("%PDF-1.4\n".utf8)
        let tail = Array("\n%%EOF\n".utf8)
        var bytes = head
        bytes.reserveCapacity(max(size, head.count + tail.count))
        var state: UInt32 = 2_463_534_242
        while bytes.count < size - tail.count {
            // xorshift: filler that does not compress to nothing.
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes.append(UInt8(ascii: "a") + UInt8(state % 26))
        }
        return bytes + tail
    }

    static func percentile(_ sorted: [Double], _ q: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
    }
}

extension UploadCounts {
    mutating func merge(_ other: UploadCounts) {
        uploads += other.uploads
        created += other.created
        refused503 += other.refused503
        refused429 += other.refused429
        self.other += other.other
        failed += other.failed
        cut += other.cut
        bytesStored += other.bytesStored
        if firstOther.isEmpty { firstOther = other.firstOther }
    }
}
