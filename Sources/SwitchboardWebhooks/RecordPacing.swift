/// When a dispatcher thread records the outcomes it has collected: in one
/// statement for many, since a record statement costs PostgreSQL about half a
/// millisecond whatever it carries (its planning alone 0.15-0.2 ms), and a
/// thread that recorded whatever had ended since its last pass recorded 14
/// outcomes at a time in a capacity drain (docs/webhooks.md, "For the
/// dispatcher"). A record that waits changes nothing
/// for its delivery (the slot and the room are free at once), only how soon
/// the delivery log shows it, and what a crash in those milliseconds sends
/// again (at least once).
///
/// 128 rather than 64 since 2026-11-29: at a drain's rate the 20 ms gather
/// about 130 a thread, and a cap of 64 sent two statements where one would
/// do (eight capacity drains alternated: the dispatcher's PostgreSQL time
/// 10-14 µs a delivery against 12-18, the record statements' execution 2.4-3.1
/// s against 3.0-3.8 for about 228,000 deliveries).
public enum RecordPacing {
    /// Outcomes recorded together without waiting longer.
    public static let atOnce = 128
    /// How long an outcome waits for others to be recorded with.
    public static let withinMilliseconds: UInt64 = 20

    /// Whether `waiting` outcomes, the oldest ended at `oldestEndedAt`
    /// (monotonic milliseconds), go now: `atOnce` of them, the oldest
    /// `withinMilliseconds` old, or nothing else in hand (`idle`: no request
    /// running or waiting, so no outcome would join them soon).
    public static func isDue(waiting: Int, oldestEndedAt: UInt64, now: UInt64, idle: Bool) -> Bool {
        guard waiting > 0 else { return false }
        return waiting >= atOnce || idle || now >= oldestEndedAt + withinMilliseconds
    }

    /// When they go at the latest, if nothing else ends meanwhile.
    public static func dueAt(oldestEndedAt: UInt64) -> UInt64 { oldestEndedAt + withinMilliseconds }
}
