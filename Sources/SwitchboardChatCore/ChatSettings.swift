import SwitchboardChat

/// The chat protocol's limits (the gateway reads them once from its configuration).
package struct ChatSettings: Sendable, Equatable {
    package var authTimeoutMilliseconds: UInt64
    package var clockSkewSeconds: Int64
    package var heartbeatSeconds: Int
    package var maxMessageBytes: Int
    package var limits: ChatLimits
    package var replayLimit: Int
    package var maxJoinedSessions: Int
    package var inboxPageSize: Int
    package var ratePerSecond: Double
    package var rateBurst: Int
    package var rateStrikes: Int
    /// Live frames a connection may hold back while its join replay is read;
    /// past it the connection cannot keep up and is closed (1008).
    package var maxReplayBuffer: Int
    /// How long the signed URL of an attachment in a frame this core encodes
    /// stays valid, from the moment it is encoded (`attachments.url_ttl_s`).
    package var attachmentURLTTLSeconds: Int64
    /// The least time between two statements of a core's read positions
    /// (`readers.read_interval_ms`, `PendingReads`).
    package var readIntervalMilliseconds: UInt64

    /// The protocol's defaults (docs/protocol.md, "Configuration"); `Configuration`'s are the same
    /// (`ChatSettingsTests`).
    package init(
        authTimeoutMilliseconds: UInt64 = 10_000, clockSkewSeconds: Int64 = 60, heartbeatSeconds: Int = 25,
        maxMessageBytes: Int = 65_536, limits: ChatLimits = ChatLimits(maxBodyBytes: 8192), replayLimit: Int = 500,
        maxJoinedSessions: Int = 100, inboxPageSize: Int = 50, ratePerSecond: Double = 20, rateBurst: Int = 40,
        rateStrikes: Int = 10, maxReplayBuffer: Int = 10_000, attachmentURLTTLSeconds: Int64 = 3600,
        readIntervalMilliseconds: UInt64 = 20
    ) {
        self.authTimeoutMilliseconds = authTimeoutMilliseconds
        self.clockSkewSeconds = clockSkewSeconds
        self.heartbeatSeconds = heartbeatSeconds
        self.maxMessageBytes = maxMessageBytes
        self.limits = limits
        self.replayLimit = replayLimit
        self.maxJoinedSessions = maxJoinedSessions
        self.inboxPageSize = inboxPageSize
        self.ratePerSecond = ratePerSecond
        self.rateBurst = rateBurst
        self.rateStrikes = rateStrikes
        self.maxReplayBuffer = maxReplayBuffer
        self.attachmentURLTTLSeconds = attachmentURLTTLSeconds
        self.readIntervalMilliseconds = readIntervalMilliseconds
    }
}
