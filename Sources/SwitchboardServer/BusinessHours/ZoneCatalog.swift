import SwitchboardRouting
import SwitchboardSystem
import Synchronization

/// Time zones from the system's tz database (the `tzdata` package's TZif
/// files under /usr/share/zoneinfo, or `$TZDIR`), each read once and kept.
/// Reads a file: call it on a database thread, never on an event loop.
final class ZoneCatalog: Sendable {
    let directory: String
    private let zones = Mutex<[String: ZoneRules]>([:])
    /// Zones found are kept, at most this many (the database has about 600).
    static let maxZones = 1000

    init(directory: String = ThisProcess.environment("TZDIR") ?? "/usr/share/zoneinfo") {
        self.directory = directory.hasSuffix("/") ? directory : directory + "/"
    }

    /// The zone's rules; nil when the name is not a zone of the database.
    func rules(_ name: String) -> ZoneRules? {
        guard BusinessHours.isZoneName(name) else { return nil }
        if let known = zones.withLock({ $0[name] }) { return known }
        guard let bytes = ThisProcess.readFile(directory + name), let rules = try? ZoneRules(tzif: bytes) else {
            return nil
        }
        zones.withLock { zones in
            if zones.count < Self.maxZones { zones[name] = rules }
        }
        return rules
    }
}
