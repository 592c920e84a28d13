/// The commands the writer thread has taken from its queue and not yet
/// sent, kept apart by their session's home lane, each in arrival order (a
/// session's commands are always taken in that order).
struct WaitingCommands {
    private var byHome: [[QueuedCommand]]
    /// `byHome[home][starts[home]...]` still wait.
    private var starts: [Int]

    init(lanes: Int) {
        byHome = Array(repeating: [], count: lanes)
        starts = Array(repeating: 0, count: lanes)
    }

    func count(_ home: Int) -> Int { byHome[home].count - starts[home] }

    /// When `home`'s oldest waiting command was accepted (0 with none).
    func oldestAcceptedAt(_ home: Int) -> UInt64 { count(home) > 0 ? byHome[home][starts[home]].acceptedAt : 0 }

    /// Moves `arrived` (in arrival order) to the end of each command's home,
    /// leaving `arrived` empty with its storage kept.
    mutating func add(_ arrived: inout [QueuedCommand]) {
        if byHome.count == 1 && byHome[0].isEmpty {
            swap(&byHome[0], &arrived)
            return
        }
        for queued in arrived { byHome[queued.home].append(queued) }
        arrived.removeAll(keepingCapacity: true)
    }

    /// Moves the oldest waiting commands of `homes`, in ascending order, to
    /// `batch`, at most `limit` in all; returns the homes it took from.
    @discardableResult
    mutating func take(from homes: LaneSet, upTo limit: Int, into batch: inout [QueuedCommand]) -> LaneSet {
        var takenFrom = LaneSet()
        for home in homes {
            let taken = min(count(home), limit - batch.count)
            if taken <= 0 { break }
            let start = starts[home]
            batch.append(contentsOf: byHome[home][start..<(start + taken)])
            advance(home, by: taken)
            takenFrom.insert(home)
        }
        return takenFrom
    }

    /// Every waiting command, removed (to fail them).
    mutating func removeAll() -> [QueuedCommand] {
        var all: [QueuedCommand] = []
        for home in 0..<byHome.count {
            all.append(contentsOf: byHome[home][starts[home]...])
            byHome[home].removeAll(keepingCapacity: true)
            starts[home] = 0
        }
        return all
    }

    private mutating func advance(_ home: Int, by count: Int) {
        starts[home] += count
        if starts[home] == byHome[home].count {
            byHome[home].removeAll(keepingCapacity: true)
            starts[home] = 0
        } else if starts[home] >= 4096 && starts[home] * 2 >= byHome[home].count {
            // Reclaim the sent front once it is most of the array.
            byHome[home].removeFirst(starts[home])
            starts[home] = 0
        }
    }
}
