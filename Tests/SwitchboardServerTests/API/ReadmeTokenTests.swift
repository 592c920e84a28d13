import Foundation
import SwitchboardAuth
import SwitchboardTestSupport
import Testing

@testable import SwitchboardServer

#if canImport(Glibc)
import Glibc
#endif

/// A newcomer copies the README's token command: the token it prints must
/// see the conversations the console and the widget demo make, which live in
/// the development workspace (`auth.dev_workspace_id`).
@Suite(.serialized) struct ReadmeTokenTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The arguments after `switchboard token` in the README's command, with
    /// the repository's relative paths made absolute.
    private static func readmeTokenArguments() throws -> [String] {
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let command = readme.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n")
            .first { $0.contains("switchboard token --") }
        guard let command, let start = command.range(of: "switchboard token ") else {
            throw TestFailure("the README shows no `switchboard token` command")
        }
        return command[start.upperBound...].split(separator: " ").map { word in
            let text = String(word).trimmingCharacters(in: CharacterSet(charactersIn: ")"))
            let path = root.appendingPathComponent(text).path
            return text.contains("/") && FileManager.default.fileExists(atPath: path) ? path : text
        }.filter { !$0.isEmpty }
    }

    @Test func theReadmeTokenListsTheDemosConversations() throws {
        let development = try ConfigurationLoader.load(
            file: Self.root.appendingPathComponent("config/development.toml").path, environment: [:],
            overrides: ConfigurationOverrides())
        let database = try TestDatabase(migrated: true)
        defer { database.drop() }
        let gateway = try EmbeddedGateway { configuration in
            configuration.databaseURL = database.url
            configuration.jwtSecret = development.jwtSecret
            configuration.devTokens = true
        }
        defer { gateway.stop() }

        // The demo page: a visitor token from /dev/token, and a conversation.
        let minted = try HTTPTestClient.request(
            gateway, "POST", "/dev/token", body: #"{"role":"visitor","name":"Ann"}"#)
        let visitorToken = try #require(minted.json["token"] as? String)
        let visitor = try ChatClient(gateway.client(timeoutSeconds: 10), token: visitorToken)
        let created = try visitor.request(["type": "session.create", "title": "Where is my parcel?"])
        let sessionID = try #require((created["session"] as? [String: Any])?["id"] as? String)

        // The README's command, as a newcomer runs it.
        let arguments = try Self.readmeTokenArguments()
        #expect(!arguments.contains("--workspace"), "the development workspace is the default: \(arguments)")
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("sb-token-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = try ChildProcess(
            [try ChildProcess.builtExecutable("switchboard"), "token"] + arguments, logPath: log)
        #expect(process.stop(signal: 0) == 0, "switchboard token failed: \(process.log)")
        let token = process.log.trimmingCharacters(in: .whitespacesAndNewlines)

        let inbox = try HTTPTestClient.request(
            gateway, "GET", "/api/v1/admin/live-chat/conversations", token: token)
        #expect(inbox.status == 200, "\(inbox.json)")
        let ids = (inbox.json["sessions"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(ids == [sessionID])
    }
}
