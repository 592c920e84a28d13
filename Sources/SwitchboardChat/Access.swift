import SwitchboardAuth
import SwitchboardIdentifiers

/// Who may touch what (docs/protocol.md "Authentication"): visitors only the sessions they opened,
/// operators and admins every session of their workspace, nobody anything of another workspace.
/// Refusals are `forbidden` errors carrying the frame's `ref`.
public enum Access {
    /// nil when allowed; otherwise a `forbidden` error (with `ref`) whose message names the session.
    public static func checkView(_ identity: Identity, _ session: SessionInfo, ref: String?) -> ChatError? {
        guard sameWorkspace(identity, session) else { return otherWorkspace(session, ref: ref) }
        if identity.role.isStaff || isOwnVisitor(identity, session) { return nil }
        return ChatError(.forbidden, "session \(session.id) is not yours", ref: ref)
    }

    /// session.assign: staff of the session's workspace only.
    public static func checkAssign(_ identity: Identity, _ session: SessionInfo, ref: String?) -> ChatError? {
        guard sameWorkspace(identity, session) else { return otherWorkspace(session, ref: ref) }
        if identity.role.isStaff { return nil }
        return ChatError(.forbidden, "only operators and admins may assign session \(session.id)", ref: ref)
    }

    /// session.close: staff of the workspace, or the session's own visitor.
    public static func checkClose(_ identity: Identity, _ session: SessionInfo, ref: String?) -> ChatError? {
        guard sameWorkspace(identity, session) else { return otherWorkspace(session, ref: ref) }
        if identity.role.isStaff || isOwnVisitor(identity, session) { return nil }
        return ChatError(.forbidden, "session \(session.id) is not yours to close", ref: ref)
    }

    /// Role-only gates (before any lookup): inbox.subscribe and session.assign need staff.
    public static func requireStaff(_ identity: Identity, action: String, ref: String?) -> ChatError? {
        if identity.role.isStaff { return nil }
        return ChatError(.forbidden, "\(action) is for operators and admins", ref: ref)
    }

    /// session.create needs a visitor: sessions belong to the visitor who opened them.
    public static func requireVisitor(_ identity: Identity, action: String, ref: String?) -> ChatError? {
        if identity.role == .visitor { return nil }
        return ChatError(.forbidden, "\(action) is for visitors", ref: ref)
    }

    // MARK: Rules

    /// UUID text may differ in case between a token's claim and the database's output.
    static func sameWorkspace(_ identity: Identity, _ session: SessionInfo) -> Bool {
        UUIDText.equalIgnoringCase(identity.workspaceID, session.workspaceID)
    }

    /// User ids are opaque (the token's `sub`), so they compare exactly. A session without a
    /// visitor (adopted legacy row) belongs to no visitor.
    static func isOwnVisitor(_ identity: Identity, _ session: SessionInfo) -> Bool {
        identity.role == .visitor && session.visitorID == identity.id && sameWorkspace(identity, session)
    }

    static func otherWorkspace(_ session: SessionInfo, ref: String?) -> ChatError {
        ChatError(.forbidden, "session \(session.id) is not in your workspace", ref: ref)
    }
}
