import SwitchboardChat

/// The chat protocol's limits, read once from the configuration.
struct ChatSettings: Sendable {
    var authTimeoutMilliseconds: UInt64
    var clockSkewSeconds: Int64
    var heartbeatSeconds: Int
    var maxMessageBytes: Int
    var limits: ChatLimits
    var replayLimit: Int
    var maxJoinedSessions: Int
    var inboxPageSize: Int
    var ratePerSecond: Double
    var rateBurst: Int
    var rateStrikes: Int
    /// Live frames a connection may hold back while its join replay is read;
    /// past it the connection cannot keep up and is closed (1008).
    var maxReplayBuffer: Int

    init(_ configuration: Configuration) {
        authTimeoutMilliseconds = UInt64(configuration.authTimeoutSeconds) * 1000
        clockSkewSeconds = Int64(configuration.authClockSkewSeconds)
        heartbeatSeconds = configuration.heartbeatSeconds
        maxMessageBytes = configuration.maxMessageBytes
        limits = ChatLimits(maxBodyBytes: configuration.chatMaxBodyBytes)
        replayLimit = configuration.chatReplayLimit
        maxJoinedSessions = configuration.chatMaxJoinedSessions
        inboxPageSize = configuration.chatInboxPageSize
        ratePerSecond = Double(configuration.chatRatePerSecond)
        rateBurst = configuration.chatRateBurst
        rateStrikes = configuration.chatRateStrikes
        maxReplayBuffer = 10_000
    }
}
