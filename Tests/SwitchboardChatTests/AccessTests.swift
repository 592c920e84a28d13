import SwitchboardAuth
import SwitchboardChat
import Testing

private let workspace = "2b1c0000-0000-4000-8000-00000000000a"
private let otherWorkspace = "3c2d0000-0000-4000-8000-00000000000b"

private func identity(_ id: String, _ role: Role, workspace: String = workspace) -> Identity {
    Identity(id: id, role: role, workspaceID: workspace, name: nil, expiresAt: 2_000_000_000)
}

private func session(visitor: String?, workspace: String = workspace) -> SessionInfo {
    SessionInfo(
        id: sessionUUID, workspaceID: workspace, visitorID: visitor, title: "", status: .open, assignedOperator: nil,
        lastSeq: 0, lastMessage: nil, createdAt: "t", updatedAt: "t")
}

/// The refusal every check returns: forbidden, carrying the ref, naming the session.
private func expectForbidden(_ error: ChatError?, ref: String?, sourceLocation: SourceLocation = #_sourceLocation) {
    guard let error else {
        Issue.record("expected forbidden, was allowed", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == .forbidden, sourceLocation: sourceLocation)
    #expect(error.ref == ref, sourceLocation: sourceLocation)
    #expect(error.message.contains(sessionUUID), sourceLocation: sourceLocation)
}

@Suite struct AccessTests {
    let ann = identity("v-42", .visitor)
    let ken = identity("op-7", .operator)
    let boss = identity("ad-1", .admin)

    @Test func visitorSeesOnlyOwnSession() {
        #expect(Access.checkView(ann, session(visitor: "v-42"), ref: "r") == nil)
        expectForbidden(Access.checkView(ann, session(visitor: "v-43"), ref: "r"), ref: "r")
        expectForbidden(Access.checkView(ann, session(visitor: nil), ref: nil), ref: nil)
        // Same visitor id in another workspace is somebody else.
        expectForbidden(Access.checkView(ann, session(visitor: "v-42", workspace: otherWorkspace), ref: "x"), ref: "x")
    }

    @Test func visitorIDsAreCaseSensitive() {
        expectForbidden(Access.checkView(ann, session(visitor: "V-42"), ref: nil), ref: nil)
    }

    @Test func staffSeeEverySessionOfTheirWorkspaceOnly() {
        for staff in [ken, boss] {
            #expect(Access.checkView(staff, session(visitor: "v-1"), ref: nil) == nil)
            #expect(Access.checkView(staff, session(visitor: nil), ref: nil) == nil)
            expectForbidden(
                Access.checkView(staff, session(visitor: "v-1", workspace: otherWorkspace), ref: "o"), ref: "o")
        }
    }

    @Test func workspaceComparisonIgnoresCase() {
        let upper = identity("op-7", .operator, workspace: workspace.uppercased())
        #expect(Access.checkView(upper, session(visitor: "v-1"), ref: nil) == nil)
        #expect(Access.checkAssign(ken, session(visitor: "v-1", workspace: workspace.uppercased()), ref: nil) == nil)
        let upperVisitor = identity("v-42", .visitor, workspace: workspace.uppercased())
        #expect(Access.checkClose(upperVisitor, session(visitor: "v-42"), ref: nil) == nil)
    }

    @Test func assignIsForStaffOfTheWorkspace() {
        #expect(Access.checkAssign(ken, session(visitor: "v-42"), ref: nil) == nil)
        #expect(Access.checkAssign(boss, session(visitor: "v-42"), ref: nil) == nil)
        expectForbidden(Access.checkAssign(ann, session(visitor: "v-42"), ref: "a"), ref: "a")
        expectForbidden(
            Access.checkAssign(ken, session(visitor: "v-42", workspace: otherWorkspace), ref: "a"), ref: "a")
    }

    @Test func closeIsForStaffOrTheOwnVisitor() {
        #expect(Access.checkClose(ann, session(visitor: "v-42"), ref: nil) == nil)
        #expect(Access.checkClose(ken, session(visitor: "v-42"), ref: nil) == nil)
        #expect(Access.checkClose(boss, session(visitor: nil), ref: nil) == nil)
        expectForbidden(Access.checkClose(ann, session(visitor: "v-43"), ref: "c"), ref: "c")
        expectForbidden(Access.checkClose(ann, session(visitor: "v-42", workspace: otherWorkspace), ref: "c"), ref: "c")
        expectForbidden(
            Access.checkClose(boss, session(visitor: "v-42", workspace: otherWorkspace), ref: nil), ref: nil)
    }

    @Test func roleGates() throws {
        #expect(Access.requireStaff(ken, action: "inbox.subscribe", ref: nil) == nil)
        #expect(Access.requireStaff(boss, action: "session.assign", ref: nil) == nil)
        let staffOnly = try #require(Access.requireStaff(ann, action: "inbox.subscribe", ref: "i"))
        #expect(staffOnly.code == .forbidden)
        #expect(staffOnly.ref == "i")
        #expect(staffOnly.message.contains("inbox.subscribe"))

        #expect(Access.requireVisitor(ann, action: "session.create", ref: nil) == nil)
        for staff in [ken, boss] {
            let visitorOnly = try #require(Access.requireVisitor(staff, action: "session.create", ref: "s"))
            #expect(visitorOnly.code == .forbidden)
            #expect(visitorOnly.ref == "s")
            #expect(visitorOnly.message.contains("session.create"))
        }
    }
}
