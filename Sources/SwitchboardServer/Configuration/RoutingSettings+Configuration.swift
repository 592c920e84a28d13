import SwitchboardRouting

extension RoutingSettings {
    /// The `routing.*` keys (checked by `Configuration.validate`).
    init(_ configuration: Configuration) {
        self.init(
            mode: RoutingMode(rawValue: configuration.routingMode) ?? .leastBusy,
            maxSessionsPerOperator: configuration.routingMaxSessionsPerOperator,
            offlineGraceSeconds: configuration.routingOfflineGraceSeconds,
            requeueOnOffline: configuration.routingRequeueOnOffline,
            heartbeatSeconds: configuration.routingHeartbeatSeconds)
    }
}
