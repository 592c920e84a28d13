import SwitchboardAuth
import SwitchboardCrypto
import SwitchboardJSON
import SwitchboardSystem

#if canImport(Glibc)
import Glibc
#endif

/// What every driver needs around the harness it runs as a child: a fresh
/// secret and workspace, tokens for its own clients, the harness's command,
/// priority and report.
public enum HarnessRuns {
    /// The harness at nice -5 where this user may raise a priority (root), as
    /// scripts/bench runs it: its own waits for the CPU are not the gateway's latency.
    public static var nicePrefix: [String] { geteuid() == 0 ? ["nice", "-n", "-5"] : [] }

    /// A fresh JWT secret: 24 random bytes in hex.
    public static func newSecret() -> String {
        SecureRandom.bytes(24).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    public static func newWorkspace() -> String { RandomUUID.make() }

    /// A token for `role` in `workspace`, signed with `secret` (what
    /// `switchboard token` mints), valid for `seconds`.
    public static func token(
        role: Role, subject: String, workspace: String, secret: String, seconds: Int64 = 12 * 3600
    ) -> String {
        let now = UnixClock.nowSeconds()
        let claims = TokenClaims(
            subject: subject, role: role, workspaceID: workspace, issuedAt: now, expiresAt: now + seconds)
        return TokenMinter.mint(claims, secret: secret)
    }

    /// `BIN/loadtest SCENARIO --url URL --jwt-secret SECRET --database-url DB` and `options` after.
    public static func command(
        binDirectory: String, scenario: String, url: String, secret: String, databaseURL: String,
        options: [String]
    ) -> [String] {
        [
            TextFile.join(binDirectory, "loadtest"), scenario, "--url", url, "--jwt-secret", secret,
            "--database-url", databaseURL,
        ] + options
    }

    /// A report the harness wrote (DIR/SCENARIO.json), or nil when it is missing or not JSON.
    public static func report(_ path: String) -> JSONValue? {
        guard let bytes = ThisProcess.readFile(path) else { return nil }
        return try? JSONParser.parse(bytes, limits: .reports)
    }
}

extension JSONValue {
    /// The number as a Double (any JSON number), or nil.
    public var doubleValue: Double? {
        if case .number(let number) = self { return number.double }
        return nil
    }

    /// Members of an object in order; empty for anything else.
    public var members: [(key: String, value: JSONValue)] {
        guard case .object(let object) = self else { return [] }
        return object.members.map { (key: $0.0, value: $0.1) }
    }
}
