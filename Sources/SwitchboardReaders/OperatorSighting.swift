import SwitchboardChat

/// An operator or admin seen connecting to a workspace, to be recorded in
/// `operators` (`ChatQueries.recordOperators`).
public struct OperatorSighting: Sendable, Equatable {
    public let workspaceID: String
    public let staff: Participant

    public init(workspaceID: String, staff: Participant) {
        self.workspaceID = workspaceID
        self.staff = staff
    }
}
