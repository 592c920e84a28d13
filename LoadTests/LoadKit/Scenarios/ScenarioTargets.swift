/// What the scenarios are held to: the project's goals, here and nowhere
/// else. `LoadOptions` starts from them (`--target-*` overrides them), each
/// report carries its targets with the goal, the measured value and whether
/// it was met, and `loadtest chat-report` (`ChatSection`) only renders what the
/// reports say.
public enum ScenarioTargets {
    /// conversations: stored messages per second...
    public static let storedPerSecond = 50_000.0
    /// ...with send-to-delivery p99 under this.
    public static let conversationsP99Milliseconds = 25.0
    /// fanout: deliveries per second...
    public static let deliveriesPerSecond = 1_000_000.0
    /// ...with send-to-delivery p99 under this.
    public static let fanoutP99Milliseconds = 50.0
    /// idle: gateway memory per idle connection...
    public static let bytesPerIdleConnection = 2048.0
    /// ...held at this many connections.
    public static let idleConnections = 10_000
}
