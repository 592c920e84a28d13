/// What the gateway knows of an upload when it starts: who sends what to which session.
public struct NewAttachment: Sendable, Equatable {
    /// A UUID chosen by the gateway; also the file name under filesystem storage.
    public var id: String
    public var workspaceID: String
    public var sessionID: String
    /// `visitor`, `operator` or `admin`.
    public var uploaderRole: String
    public var uploaderID: String
    /// 1 to 255 bytes of UTF-8.
    public var filename: String

    public init(
        id: String, workspaceID: String, sessionID: String, uploaderRole: String, uploaderID: String, filename: String
    ) {
        self.id = id
        self.workspaceID = workspaceID
        self.sessionID = sessionID
        self.uploaderRole = uploaderRole
        self.uploaderID = uploaderID
        self.filename = filename
    }
}
