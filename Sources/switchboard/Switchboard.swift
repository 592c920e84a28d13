import ArgumentParser

@main
struct Switchboard: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Realtime live-chat gateway: WebSocket fan-out with every message stored in PostgreSQL.",
        subcommands: [Serve.self, Migrate.self, Token.self, Attachments.self])
}
