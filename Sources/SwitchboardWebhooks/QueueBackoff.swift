/// How long the dispatcher leaves the delivery queue (the database) alone
/// after a claim or a record failed: 100 ms, doubling to 10 s, back to none
/// on the first success. A database that is down is asked again and again,
/// never hammered, and nothing is lost meanwhile: what is not claimed stays
/// due, and an attempt whose outcome cannot be recorded is sent again when
/// its lease runs out.
public struct QueueBackoff: Sendable, Equatable {
    public static let firstDelayMilliseconds: UInt64 = 100
    public static let maximumDelayMilliseconds: UInt64 = 10_000

    public private(set) var delayMilliseconds: UInt64 = 0
    /// Monotonic milliseconds before which the queue is left alone.
    public private(set) var resumeAt: UInt64 = 0
    /// Failures in a row.
    public private(set) var failures = 0

    public init() {}

    public mutating func failed(at now: UInt64) {
        delayMilliseconds =
            delayMilliseconds == 0
            ? Self.firstDelayMilliseconds : min(delayMilliseconds * 2, Self.maximumDelayMilliseconds)
        resumeAt = now + delayMilliseconds
        failures += 1
    }

    public mutating func succeeded() {
        self = QueueBackoff()
    }

    public func isWaiting(at now: UInt64) -> Bool { now < resumeAt }
}
