/// What a visitor's `availability` frame says (PROTOCOL.md, "Routing"):
/// whether an operator is available in its workspace, its session's place
/// in the queue while it waits, and, outside business hours, when they
/// open again.
public struct VisitorAvailability: Sendable, Equatable {
    public let operatorsAvailable: Bool
    /// 1-based; nil when the session does not wait (or waits beyond the queue's head this node holds).
    public let queuePosition: Int?
    public let hours: OpeningState

    public init(operatorsAvailable: Bool, queuePosition: Int?, hours: OpeningState = .open) {
        self.operatorsAvailable = operatorsAvailable
        self.queuePosition = queuePosition
        self.hours = hours
    }
}

/// What every visitor of one workspace is told, taken from a node's board
/// at once (one lock however many visitors a loop re-checks).
public struct WorkspaceAvailability: Sendable {
    public let operatorsAvailable: Bool
    /// Session id to its 1-based place.
    let positions: [String: Int]
    public let hours: OpeningState

    public init(operatorsAvailable: Bool, positions: [String: Int], hours: OpeningState) {
        self.operatorsAvailable = operatorsAvailable
        self.positions = positions
        self.hours = hours
    }

    public func of(_ sessionID: String) -> VisitorAvailability {
        VisitorAvailability(operatorsAvailable: operatorsAvailable, queuePosition: positions[sessionID], hours: hours)
    }
}

/// Whether a workspace is within its business hours.
public struct OpeningState: Sendable, Equatable {
    public let open: Bool
    /// RFC 3339, when it is closed: the next opening (nil: none known).
    public let opensAt: String?

    public init(open: Bool, opensAt: String?) {
        self.open = open
        self.opensAt = open ? nil : opensAt
    }

    public static let open = OpeningState(open: true, opensAt: nil)
}

/// The seam for business hours (`GET/PUT /api/v1/business-hours` stores
/// them): whether a workspace is open at a moment. Asked on event-loop
/// threads for every `availability` a node sends, so an implementation
/// answers from memory (a schedule it keeps loaded), never from the
/// database. `AlwaysOpen` until one is plugged in.
public protocol BusinessHoursSchedule: Sendable {
    func state(of workspaceID: String, atUnixSeconds now: Int64) -> OpeningState
}

/// No business hours: every workspace is always open.
public struct AlwaysOpen: BusinessHoursSchedule {
    public init() {}
    public func state(of workspaceID: String, atUnixSeconds now: Int64) -> OpeningState { .open }
}
