import ArgumentParser
import SwitchboardAuth
import SwitchboardServer
import SwitchboardSystem

/// `switchboard token`: mints a development token (docs/protocol.md "Command line") with
/// the secret the gateway would use: --jwt-secret, else SWITCHBOARD_JWT_SECRET,
/// else the configuration file's auth.jwt_secret.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a signed development token (HS256 JWT).")

    @Option(help: "visitor, operator or admin.")
    var role: String

    @Option(help: "The workspace the user acts in (UUID; default: the configuration's auth.dev_workspace_id).")
    var workspace: String?

    @Option(help: "The user's id (the `sub` claim, at most 128 bytes).")
    var sub: String

    @Option(help: "Display name (shown as the operator name on messages).")
    var name: String?

    @Option(help: "Seconds until the token expires.")
    var ttl: Int = 3600

    @Option(name: .customLong("jwt-secret"), help: "HS256 secret (or SWITCHBOARD_JWT_SECRET, or the file's).")
    var jwtSecret: String?

    @Option(help: "Configuration file (TOML) to read auth.jwt_secret from.")
    var config: String?

    func validate() throws {
        guard Role(rawValue: role) != nil else {
            throw ValidationError("--role must be visitor, operator or admin, not '\(role)'")
        }
        // Ten years is plenty for a development token, and keeps exp far from overflow.
        guard ttl > 0 && ttl <= 315_360_000 else { throw ValidationError("--ttl must be 1...315360000 seconds") }
        guard !sub.isEmpty, sub.utf8.count <= 128 else { throw ValidationError("--sub must be 1 to 128 bytes") }
    }

    func run() throws {
        let configuration: Configuration
        do {
            configuration = try ConfigurationLoader.load(
                file: config, environment: ThisProcess.environment,
                overrides: ConfigurationOverrides(jwtSecret: jwtSecret))
        } catch {
            throw ValidationError("\(error)")
        }
        guard !configuration.jwtSecret.isEmpty else {
            throw ValidationError("no secret: pass --jwt-secret, set SWITCHBOARD_JWT_SECRET or auth.jwt_secret")
        }
        let now = UnixClock.nowSeconds()
        let claims = TokenClaims(
            subject: sub, role: Role(rawValue: role)!,
            // The console and the widget demo act in the development workspace: so do tokens minted for them.
            workspaceID: (workspace ?? configuration.devWorkspaceID).lowercased(), name: name,
            issuedAt: now, expiresAt: now + Int64(ttl))
        let token = TokenMinter.mint(claims, secret: configuration.jwtSecret)
        // Refuse to print what the gateway would refuse (a bad workspace id, say).
        do {
            _ = try TokenVerifier(secret: configuration.jwtSecret, clockSkewSeconds: 0).verify(token, now: now)
        } catch {
            throw ValidationError("cannot mint a valid token: \(error)")
        }
        print(token)
    }
}
