import SwitchboardChatCore
import Testing

@testable import SwitchboardServer

/// The chat core's defaults are the configuration's: a core built with
/// `ChatSettings()` (its tests) behaves as a gateway with no settings.
@Suite struct ChatSettingsTests {
    @Test func theCoresDefaultsAreTheConfigurations() {
        #expect(ChatSettings() == ChatSettings(Configuration()))
    }

    /// `attachments.url_ttl_s` is the lifetime of the URLs messages and history carry too.
    @Test func theAttachmentURLLifetimeIsTheConfigurations() {
        var configuration = Configuration()
        configuration.attachmentsURLTTLSeconds = 600
        #expect(ChatSettings(configuration).attachmentURLTTLSeconds == 600)
    }
}
