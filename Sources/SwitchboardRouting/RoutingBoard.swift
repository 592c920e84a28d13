/// What one node knows of routing, to tell its own clients (docs/routing.md,
/// "Presence and availability"): for each workspace a console here follows
/// (`presence.subscribe`), every operator as last told; for each workspace
/// a visitor here waits in, the queue's head; and for every workspace
/// whether an operator is available (`welcome`, `availability`).
///
/// It never decides anything: the database does. It only remembers what was
/// last told, so that a change reaches the clients once however many
/// sources tell it (the bus, a heartbeat's re-read, this node's own pass),
/// and nothing at all when nothing changed.
public struct RoutingBoard: Sendable {
    struct Followed {
        var presenceWatchers = 0
        var queueWatchers = 0
        /// By id; nil until the first whole list was read.
        var operators: [String: OperatorPresence]?
        /// Session id to its 1-based place; nil until the queue was read.
        var positions: [String: Int]?
    }

    private var followed: [String: Followed] = [:]
    /// Workspaces with an operator available, as last told; absent: none.
    private var available: Set<String> = []

    public init() {}

    // MARK: Who follows what

    /// A console here follows the workspace's presence; true for the first (read the list).
    public mutating func watchPresence(_ workspaceID: String) -> Bool { watch(workspaceID, \.presenceWatchers) }

    public mutating func unwatchPresence(_ workspaceID: String) {
        unwatch(workspaceID, \.presenceWatchers) { $0.operators = nil }
    }

    /// A visitor here has a session in the workspace; true for the first (read the queue).
    public mutating func watchQueue(_ workspaceID: String) -> Bool { watch(workspaceID, \.queueWatchers) }

    public mutating func unwatchQueue(_ workspaceID: String) {
        unwatch(workspaceID, \.queueWatchers) { $0.positions = nil }
    }

    private mutating func watch(_ workspaceID: String, _ watchers: WritableKeyPath<Followed, Int>) -> Bool {
        followed[workspaceID, default: Followed()][keyPath: watchers] += 1
        return followed[workspaceID]?[keyPath: watchers] == 1
    }

    /// One watcher fewer; with none left, `forget` drops what they were told.
    private mutating func unwatch(
        _ workspaceID: String, _ watchers: WritableKeyPath<Followed, Int>, forget: (inout Followed) -> Void
    ) {
        guard var entry = followed[workspaceID] else { return }
        entry[keyPath: watchers] = max(0, entry[keyPath: watchers] - 1)
        if entry[keyPath: watchers] == 0 { forget(&entry) }
        followed[workspaceID] = entry.presenceWatchers == 0 && entry.queueWatchers == 0 ? nil : entry
    }

    public var presenceWorkspaces: [String] { followed.filter { $0.value.presenceWatchers > 0 }.map(\.key) }
    public var queueWorkspaces: [String] { followed.filter { $0.value.queueWatchers > 0 }.map(\.key) }

    public func watchesPresence(_ workspaceID: String) -> Bool { (followed[workspaceID]?.presenceWatchers ?? 0) > 0 }
    public func watchesQueue(_ workspaceID: String) -> Bool { (followed[workspaceID]?.queueWatchers ?? 0) > 0 }

    // MARK: What was told

    /// Operators as someone read them; returns those that differ from what
    /// was last told (each once), and nothing for a workspace nobody here
    /// follows. `complete`: the workspace's whole list, which also says
    /// whether anyone is available.
    public mutating func tell(
        _ operators: [OperatorPresence], of workspaceID: String, complete: Bool
    ) -> [OperatorPresence] {
        if complete { setAvailable(workspaceID, operators.contains(where: \.available)) }
        guard var entry = followed[workspaceID], entry.presenceWatchers > 0 else { return [] }
        var known = entry.operators ?? [:]
        var changed: [OperatorPresence] = []
        for presence in operators where !Self.showsTheSame(known[presence.id], presence) {
            // Before the first whole list, nothing was told: the list itself says it.
            if entry.operators != nil { changed.append(presence) }
            known[presence.id] = presence
        }
        if complete || entry.operators != nil { entry.operators = known }
        followed[workspaceID] = entry
        return changed
    }

    /// Whether `presence.updated` would say the same of both: its fields
    /// only (a new `last_seen_at` or `last_assigned_at` alone is no news).
    static func showsTheSame(_ known: OperatorPresence?, _ new: OperatorPresence) -> Bool {
        guard let known else { return false }
        return known.id == new.id && known.name == new.name && known.status == new.status
            && known.connected == new.connected && known.activeSessions == new.activeSessions
            && known.capacity == new.capacity
    }

    /// The queue's head, oldest first; true when a place changed for a workspace a visitor here waits in.
    public mutating func tellQueue(_ head: [String], of workspaceID: String) -> Bool {
        guard var entry = followed[workspaceID], entry.queueWatchers > 0 else { return false }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(head.count)
        for (index, id) in head.enumerated() { positions[id] = index + 1 }
        guard positions != entry.positions else { return false }
        entry.positions = positions
        followed[workspaceID] = entry
        return true
    }

    /// Whether an operator is available; true when that changed.
    @discardableResult
    public mutating func setAvailable(_ workspaceID: String, _ value: Bool) -> Bool {
        value ? available.insert(workspaceID).inserted : available.remove(workspaceID) != nil
    }

    /// Every workspace with an operator available (a heartbeat's read);
    /// returns the workspaces whose value changed.
    public mutating func replaceAvailable(_ workspaces: Set<String>) -> Set<String> {
        let changed = available.symmetricDifference(workspaces)
        available = workspaces
        return changed
    }

    public func operatorsAvailable(_ workspaceID: String) -> Bool { available.contains(workspaceID) }

    /// Whether the queue of a workspace a visitor here waits in was read.
    public func knowsQueue(_ workspaceID: String) -> Bool { followed[workspaceID]?.positions != nil }

    /// What the visitors of `workspaceID` are told, with the workspace's business hours.
    public func availability(of workspaceID: String, hours: OpeningState) -> WorkspaceAvailability {
        WorkspaceAvailability(
            operatorsAvailable: operatorsAvailable(workspaceID), positions: followed[workspaceID]?.positions ?? [:],
            hours: hours)
    }

    public func position(of sessionID: String, in workspaceID: String) -> Int? {
        followed[workspaceID]?.positions?[sessionID]
    }
}
