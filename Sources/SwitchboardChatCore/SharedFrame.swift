import SwitchboardChat
import SwitchboardWebSocket

/// A server message encoded once and shared by every connection it goes to:
/// the JSON text, and the whole uncompressed WebSocket frame around it, so
/// that most subscribers' writes are a single copy into the socket. A class,
/// so handing it to each of a thousand subscribers costs one reference count,
/// not one per array.
package final class SharedFrame: Sendable {
    package let payload: [UInt8]
    package let frame: [UInt8]

    /// Keeps an exact-size copy: `payload` usually shares the encoder's reused
    /// buffer, whose capacity (as large as the biggest reply it ever wrote,
    /// an inbox page) the frame would otherwise hold, and the encoder would
    /// reallocate on its next reset.
    package init(payload: [UInt8]) {
        let exact = payload.withUnsafeBufferPointer { [UInt8]($0) }
        self.payload = exact
        frame = exact.withUnsafeBytes { FrameEncoder.encode(opcode: .text, payload: $0) }
    }
}

/// A frame for everyone joined to a session. Messages carry their `seq`, so
/// that a connection still replaying history can skip what the replay
/// already gave it; typing, read and session events carry none.
package struct SessionFrame: Sendable {
    package let sessionID: String
    package let seq: Int64?
    /// A participant who should not get it (typing goes to the others only).
    package let excludedConnection: UInt64?
    package let frame: SharedFrame
    /// A private note's frame: a visitor's subscription counts its seq as had and never writes it.
    package let staffOnly: Bool

    package init(sessionID: String, seq: Int64?, excludedConnection: UInt64?, frame: SharedFrame) {
        self.sessionID = sessionID
        self.seq = seq
        self.excludedConnection = excludedConnection
        self.frame = frame
        self.staffOnly = false
    }

    /// A stored message's frame, a note's marked as such: every message frame is made here.
    package init(_ message: ChatMessage, frame: SharedFrame) {
        sessionID = message.sessionID
        seq = message.seq
        excludedConnection = nil
        self.frame = frame
        staffOnly = message.isNote
    }
}

/// What one loop's core tells every core, its own included, besides
/// committed messages (`ChatCore.committed`).
package enum ChatEvent: Sendable {
    /// `typing` or `read`: for the session's subscribers.
    case session(SessionFrame)
    /// A session was created or changed: every core updates what it knows of
    /// it and sends `frame` (its `session.updated`) to the session's
    /// subscribers and the workspace's inbox, except `excludedConnection`,
    /// which got it as the answer to its own request.
    case sessionChanged(SessionInfo, frame: SharedFrame, excludedConnection: UInt64?)
    /// A message stored outside the writer's batches (an event of a session
    /// change): for the session's subscribers, in seq order with the rest.
    case stored(ChatMessage)
}
