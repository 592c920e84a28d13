import SwitchboardReaders
import SwitchboardRouting
import SwitchboardSystem
import Synchronization

/// Every workspace's business hours, in this node's memory, for the
/// `availability` visitors get (`BusinessHoursSchedule`, asked on event
/// loops: it answers from memory and never waits). The whole table is read
/// on a reader thread when the node starts and again whenever a question
/// finds the copy older than `refreshSeconds` (15), so that a `PUT` on another
/// node shows here within that (and the heartbeat that re-checks waiting
/// visitors); a `PUT` on this node replaces its workspace's entry at once.
final class BusinessHoursBook: BusinessHoursSchedule {
    static let defaultRefreshSeconds: Int64 = 15
    /// More workspaces with business hours than this are not kept (always open beyond it; logged).
    static let maxWorkspaces = 100_000

    struct Entry {
        let hours: BusinessHours
        let zone: ZoneRules
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Unix seconds of the latest complete read; 0 before the first.
        var loadedAt: Int64 = 0
        var loading = false
        /// Written on this node while a read was under way: newer than what it may bring.
        var writtenMeanwhile: [String: Entry?] = [:]

        /// Marks a read as under way.
        @discardableResult mutating func start() -> Bool {
            loading = true
            writtenMeanwhile = [:]
            return true
        }
    }

    private let state = Mutex(State())
    let zones: ZoneCatalog
    /// A copy older than this is read again at the next question.
    let refreshSeconds: Int64
    private let load: @Sendable (@escaping @Sendable (ChatQueries) -> Void) -> Bool

    /// `submit`: runs a job on a reader thread (false: none could take it; the next question tries again).
    init(
        zones: ZoneCatalog, refreshSeconds: Int64 = defaultRefreshSeconds,
        submit: @escaping @Sendable (@escaping @Sendable (ChatQueries) -> Void) -> Bool
    ) {
        self.zones = zones
        self.refreshSeconds = refreshSeconds
        self.load = submit
    }

    func state(of workspaceID: String, atUnixSeconds now: Int64) -> OpeningState {
        let (entry, stale) = state.withLock { state -> (Entry?, Bool) in
            let stale = !state.loading && now - state.loadedAt >= refreshSeconds
            if stale { state.start() }
            return (state.entries[workspaceID], stale)
        }
        if stale { reload() }
        guard let entry else { return .open }
        return Self.opening(entry, at: now)
    }

    static func opening(_ entry: Entry, at now: Int64) -> OpeningState {
        switch entry.hours.state(at: now, offset: entry.zone.offset(at:)) {
        case .open: return .open
        case .closed(let opensAt): return OpeningState(open: false, opensAt: opensAt.map(Self.rfc3339))
        }
    }

    /// A workspace's schedule as just written on this node (nil: none).
    func replace(_ workspaceID: String, with entry: Entry?) {
        state.withLock { state in
            state.entries[workspaceID] = entry
            if state.loading { state.writtenMeanwhile[workspaceID] = entry }
        }
    }

    /// Reads the whole table now (at start-up), unless a read is under way.
    func loadNow() {
        guard state.withLock({ state in state.loading ? false : state.start() }) else { return }
        reload()
    }

    /// Reads the whole table on a reader thread; `loading` was set by the caller.
    private func reload() {
        let submitted = load { [self] queries in
            let rows = try? queries.allBusinessHours(limit: Self.maxWorkspaces)
            var entries: [String: Entry] = [:]
            for row in rows ?? [] {
                guard let hours = BusinessHoursBody.schedule(row), let zone = zones.rules(row.timeZone) else {
                    continue
                }
                entries[row.workspaceID] = Entry(hours: hours, zone: zone)
            }
            state.withLock { state in
                state.loading = false
                // A failed read keeps the old copy and is retried at the next question.
                if rows != nil {
                    for (workspaceID, entry) in state.writtenMeanwhile { entries[workspaceID] = entry }
                    state.entries = entries
                    state.loadedAt = UnixClock.nowSeconds()
                }
                state.writtenMeanwhile = [:]
            }
        }
        if !submitted { state.withLock { $0.loading = false } }
    }

    /// `2026-03-30T07:00:00Z`.
    static func rfc3339(_ instant: Int64) -> String {
        let day = PosixZoneRule.floorDiv(instant, 86400)
        let seconds = Int(instant - day * 86400)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return CivilDate(day: day).iso + "T" + two(seconds / 3600) + ":" + two(seconds / 60 % 60) + ":"
            + two(seconds % 60) + "Z"
    }
}
