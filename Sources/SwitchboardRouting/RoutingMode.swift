/// How queued sessions find an operator (`routing.mode`, docs/routing.md).
public enum RoutingMode: String, Sendable, Equatable, CaseIterable {
    /// The available operator with the fewest open assigned sessions; ties
    /// to the one assigned least recently (the protocol's default).
    case leastBusy = "least_busy"
    /// The available operator assigned least recently, whatever its load.
    case roundRobin = "round_robin"
    /// Nobody is assigned automatically: the inbox as before routing.
    case manual

    /// The policy that picks for this mode.
    public var policy: any RoutingPolicy {
        switch self {
        case .leastBusy: LeastBusyPolicy()
        case .roundRobin: RoundRobinPolicy()
        case .manual: ManualPolicy()
        }
    }
}
