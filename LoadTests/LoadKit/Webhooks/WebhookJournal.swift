import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// `loadtest webhook-receiver --journal FILE`: one line per webhook,
/// `EVENT_ID STATUS SIGNATURE` (`ok`, `bad` or `none`), appended before the
/// answer is sent, so that every event the receiver accepted is in the file
/// even if the receiver is killed (SIGKILL) right after; a receiver started
/// again on the same file appends to it. Drivers read it to check that every
/// event written arrived (`WebhookJournal.read`).
final class WebhookJournalWriter {
    private let fd: Int32
    private var pending: [UInt8] = []

    init(path: String) throws(DriveError) {
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw DriveError("--journal \(path): \(String(cString: strerror(errno)))") }
        pending.reserveCapacity(64 * 1024)
    }

    deinit { Posix.close(fd) }

    func append(id: some Collection<UInt8>, status: Int, signature: SignatureCheck) {
        // An id with a space or a line break in it would break the format: those bytes become '_'.
        pending.append(contentsOf: id.map { $0 <= 32 || $0 == 127 ? UInt8(ascii: "_") : $0 })
        pending.append(UInt8(ascii: " "))
        let code = min(max(status, 0), 999)
        pending.append(UInt8(48 + code / 100))
        pending.append(UInt8(48 + code / 10 % 10))
        pending.append(UInt8(48 + code % 10))
        pending.append(UInt8(ascii: " "))
        pending.append(contentsOf: signature.journalBytes)
        pending.append(UInt8(ascii: "\n"))
    }

    /// Writes what was appended (before the answers of those webhooks are sent).
    func flush() {
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                done += n
            }
        }
        pending.removeAll(keepingCapacity: true)
    }
}

extension SignatureCheck {
    private static let words = [Array("ok".utf8), Array("bad".utf8), Array("none".utf8)]

    fileprivate var journalBytes: [UInt8] {
        switch self {
        case .valid: return Self.words[0]
        case .invalid: return Self.words[1]
        case .unchecked: return Self.words[2]
        }
    }
}

/// What a receiver's journal says: the events accepted (a 2xx to a webhook
/// whose signature was good, or not checked), duplicates, bad signatures.
public struct WebhookJournal: Sendable, Equatable {
    /// Event ids answered 2xx at least once with a signature that was not bad.
    public var accepted: Set<String> = []
    /// Lines in all, and 2xx answers to an event already accepted.
    public var lines = 0
    public var duplicates = 0
    public var badSignatures = 0
    /// Non-2xx answers (the plan's failures and bad signatures).
    public var refused = 0

    public init() {}

    public init(text: String) {
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, let status = Int(fields[1]) else { continue }
            lines += 1
            if fields[2] == "bad" { badSignatures += 1 }
            guard (200...299).contains(status), fields[2] != "bad" else {
                refused += 1
                continue
            }
            if !accepted.insert(String(fields[0])).inserted { duplicates += 1 }
        }
    }

    /// The journal at `path`; empty when there is none.
    public static func read(_ path: String) -> WebhookJournal {
        guard let bytes = ThisProcess.readFile(path) else { return WebhookJournal() }
        return WebhookJournal(text: String(decoding: bytes, as: UTF8.self))
    }

    /// The ids of `expected` that were never accepted, sorted.
    public func missing(_ expected: some Sequence<String>) -> [String] {
        expected.filter { !accepted.contains($0) }.sorted()
    }
}
