import SwitchboardWriter

/// Where the chat core hands its sends: `BatchWriter` in production, a fake
/// in tests. `submit` never waits; each accepted command's result comes back
/// to the core of the loop that submitted it (`ChatCore.committed`), after
/// the commit.
package protocol MessageStore: Sendable {
    func submit(_ command: WriteCommand) -> SubmitOutcome
}

extension BatchWriter: MessageStore {}
