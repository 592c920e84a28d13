import SwitchboardChat
import SwitchboardReaders

/// The `read` frames a core has taken and not yet stored. Widgets and
/// consoles send one for each message that reaches a conversation on screen,
/// about two per message where both sides watch: stored one by one, each was
/// a durable transaction of its own and a job in the readers' queue, more
/// database work than storing the message. So a core keeps one statement in
/// flight, and starts one at most every `readers.read_interval_ms` (20 ms by
/// default): a read on a quiet core goes at once, and every read that arrives
/// while a statement runs, or sooner than that after it began, waits for the
/// next one, which then carries them all. A read position is a receipt ("Seen")
/// that no one waits on as on a message: a few tens of milliseconds more cost
/// nothing there, and make the batch, and what each read costs, follow the load.
///
/// One position waits per session and reader, the highest asked (a
/// position never moves backwards, so a lower one would store nothing);
/// the connections that asked are kept with the ref of their latest `read`,
/// to be told if it fails. So what waits is bounded by the readers joined
/// to this core's sessions, however fast they send.
struct PendingReads {
    /// Positions per statement (four arrays of this length): a bound on one
    /// statement's time and row locks; more wait for the next.
    static let batchLimit = 1_000

    struct Key: Hashable {
        let sessionID: String
        let readerID: String
    }

    struct Entry: Sendable {
        let sessionID: String
        /// The highest seq asked.
        var seq: Int64
        var reader: Participant
        /// Each connection that asked, with the ref of its latest `read`.
        var askers: [UInt64: String?]

        var position: ReadPosition {
            ReadPosition(sessionID: sessionID, readerID: reader.id, readerRole: reader.role, seq: seq)
        }
    }

    private var waiting: [Key: Entry] = [:]
    private(set) var storing = false
    /// When the last statement started (the loop's clock); nil once its
    /// interval is known to be over (none yet, or its timer fired).
    private var lastStartedAt: UInt64?
    /// A timer is set to start the next statement.
    private var timerSet = false

    /// Notes that connection `id` read `sessionID` up to `seq` as `reader`.
    mutating func add(_ id: UInt64, ref: String?, sessionID: String, seq: Int64, reader: Participant) {
        let key = Key(sessionID: sessionID, readerID: reader.id)
        if var entry = waiting[key] {
            entry.seq = max(entry.seq, seq)
            entry.reader = reader
            entry.askers[id] = ref
            waiting[key] = entry
        } else {
            waiting[key] = Entry(sessionID: sessionID, seq: seq, reader: reader, askers: [id: ref])
        }
    }

    /// What to do at `now` with a least `interval` between statements.
    enum Next {
        /// Store these (at most `batchLimit`): their statement is now in flight.
        case store([Entry])
        /// Set a timer for this many milliseconds, then `fireTimer()` and ask again.
        case wait(UInt64)
        /// A statement is in flight, a timer is set, or nothing waits.
        case nothing
    }

    mutating func next(now: UInt64, interval: UInt64) -> Next {
        guard !storing, !timerSet, !waiting.isEmpty else { return .nothing }
        if let last = lastStartedAt, now < last + interval {
            timerSet = true
            return .wait(last + interval - now)
        }
        storing = true
        lastStartedAt = now
        return .store(take())
    }

    /// The timer `next` asked for has fired: the interval is over, whatever
    /// the clock says.
    mutating func fireTimer() {
        timerSet = false
        lastStartedAt = nil
    }

    private mutating func take() -> [Entry] {
        guard waiting.count > Self.batchLimit else {
            defer { waiting = [:] }
            return Array(waiting.values)
        }
        var taken: [Entry] = []
        taken.reserveCapacity(Self.batchLimit)
        for key in Array(waiting.keys.prefix(Self.batchLimit)) {
            if let entry = waiting.removeValue(forKey: key) { taken.append(entry) }
        }
        return taken
    }

    /// The statement in flight ended (stored, failed or refused).
    mutating func finishStoring() {
        storing = false
    }
}
