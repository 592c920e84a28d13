import SwitchboardSystem

/// This node's default `cluster.node_id`: the host name and the process id,
/// unique among nodes that run at the same time, readable in logs and metrics.
public enum NodeIdentity {
    public static func defaultID() -> String { "\(ThisProcess.hostName)-\(ThisProcess.id)" }
}
