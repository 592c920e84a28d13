import SwitchboardWebSocket

/// A server message encoded once and shared by every connection it goes to:
/// the JSON text, and the whole uncompressed WebSocket frame around it, so
/// that most subscribers' writes are a single copy into the socket. A class,
/// so handing it to each of a thousand subscribers costs one reference count,
/// not one per array.
final class SharedFrame: Sendable {
    let payload: [UInt8]
    let frame: [UInt8]

    /// Keeps an exact-size copy: `payload` usually shares the encoder's reused
    /// buffer, whose capacity (as large as the biggest reply it ever wrote,
    /// an inbox page) the frame would otherwise hold, and the encoder would
    /// reallocate on its next reset.
    init(payload: [UInt8]) {
        let exact = payload.withUnsafeBufferPointer { [UInt8]($0) }
        self.payload = exact
        frame = exact.withUnsafeBytes { FrameEncoder.encode(opcode: .text, payload: $0) }
    }
}

/// A frame for everyone joined to a session. Messages carry their `seq`, so
/// that a connection still replaying history can skip what the replay
/// already gave it; typing, read and session events carry none.
struct SessionFrame: Sendable {
    let sessionID: String
    let seq: Int64?
    /// A participant who should not get it (typing goes to the others only).
    let excludedConnection: UInt64?
    let frame: SharedFrame
}

/// A frame for every inbox subscriber of a workspace (`session.updated`).
struct WorkspaceFrame: Sendable {
    let workspaceID: String
    let excludedConnection: UInt64?
    let frame: SharedFrame
}

/// What one loop gets from a committed batch or a finished reader job.
struct LoopDelivery: Sendable {
    var sessionFrames: [SessionFrame] = []
    var workspaceFrames: [WorkspaceFrame] = []

    var isEmpty: Bool { sessionFrames.isEmpty && workspaceFrames.isEmpty }
}
