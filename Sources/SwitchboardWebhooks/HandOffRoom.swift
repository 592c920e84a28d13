/// How many deliveries a hand-over may bring (`DispatchBounds.reserveHandOff`):
/// at most `limit` in all, and of each endpoint no more than its share less
/// what it holds already. Claims skip an endpoint holding its share; a
/// hand-over keeps to it too, or a slow endpoint's deliveries would fill the
/// room the others' need.
public struct HandOffRoom: Sendable, Equatable {
    /// Deliveries in all, reserved for this hand-over.
    public let limit: Int
    /// Deliveries one endpoint may hold, however they came.
    public let perEndpoint: Int
    /// What each endpoint holding any holds now.
    public let held: [String: Int]

    public static let none = HandOffRoom(limit: 0, perEndpoint: 0, held: [:])

    public init(limit: Int, perEndpoint: Int, held: [String: Int]) {
        self.limit = limit
        self.perEndpoint = perEndpoint
        self.held = held
    }

    /// What may be handed over of `endpoint`.
    public func room(of endpoint: String) -> Int {
        max(0, min(limit, perEndpoint - held[endpoint, default: 0]))
    }

    /// What may be handed over of any endpoint: a pass of this many messages
    /// hands every delivery over, however they are spread.
    public var everyEndpoint: Int { max(0, min(limit, perEndpoint - (held.values.max() ?? 0))) }
}
