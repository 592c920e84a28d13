import SwitchboardChat
import SwitchboardChatCore

extension ChatSettings {
    /// The chat protocol's limits as the configuration sets them.
    init(_ configuration: Configuration) {
        self.init(
            authTimeoutMilliseconds: UInt64(configuration.authTimeoutSeconds) * 1000,
            clockSkewSeconds: Int64(configuration.authClockSkewSeconds),
            heartbeatSeconds: configuration.heartbeatSeconds, maxMessageBytes: configuration.maxMessageBytes,
            limits: ChatLimits(maxBodyBytes: configuration.chatMaxBodyBytes),
            replayLimit: configuration.chatReplayLimit,
            maxJoinedSessions: configuration.chatMaxJoinedSessions, inboxPageSize: configuration.chatInboxPageSize,
            ratePerSecond: Double(configuration.chatRatePerSecond), rateBurst: configuration.chatRateBurst,
            rateStrikes: configuration.chatRateStrikes,
            attachmentURLTTLSeconds: Int64(configuration.attachmentsURLTTLSeconds),
            readIntervalMilliseconds: UInt64(configuration.readerReadIntervalMilliseconds))
    }
}
