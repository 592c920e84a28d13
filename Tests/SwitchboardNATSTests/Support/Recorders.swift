import Foundation
import SwitchboardNATS
import Synchronization

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

func waitUntil(timeout: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}

/// What a client delivered: messages by subject, and every state it reported.
final class ClientRecorder: Sendable {
    private struct State {
        var messages: [String: [String]] = [:]
        var states: [NATSConnectionState] = []
    }

    private let state = Mutex(State())

    var onMessage: @Sendable (String, [UInt8]) -> Void {
        { [self] subject, payload in
            state.withLock { $0.messages[subject, default: []].append(String(decoding: payload, as: UTF8.self)) }
        }
    }

    var onState: @Sendable (NATSConnectionState) -> Void {
        { [self] new in state.withLock { $0.states.append(new) } }
    }

    func messages(_ subject: String) -> [String] { state.withLock { $0.messages[subject] ?? [] } }
    func count(_ subject: String) -> Int { state.withLock { $0.messages[subject]?.count ?? 0 } }
    var states: [NATSConnectionState] { state.withLock { $0.states } }

    /// Waits until at least `count` messages arrived on `subject`.
    func wait(for count: Int, on subject: String, timeout: Double = 30) throws -> [String] {
        guard waitUntil(timeout: timeout, { self.count(subject) >= count }) else {
            throw TestFailure("only \(self.count(subject)) of \(count) messages arrived on \(subject) in \(timeout) s")
        }
        return messages(subject)
    }
}

extension NATSClient {
    /// Waits until the client reports `state`.
    func wait(for state: NATSConnectionState, timeout: Double = 15) throws {
        guard waitUntil(timeout: timeout, { self.state == state }) else {
            throw TestFailure("the client stayed \(self.state), not \(state), for \(timeout) s")
        }
    }
}
