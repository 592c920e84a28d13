import Testing

@testable import SwitchboardServer

/// The [attachments] keys of storage and purges (the rest come with the HTTP endpoints).
@Suite struct AttachmentStorageConfigurationTests {
    @Test func theDocumentedDefaultsAreTheBuiltInOnes() throws {
        let documented = try ConfigurationLoader.load(
            file: RepositoryPath.resolve("config/switchboard.toml"), environment: [:], overrides: .init())
        let builtIn = Configuration()
        #expect(builtIn.attachmentsStorage == "postgres" && builtIn.attachmentsPath == ".data/attachments")
        #expect(builtIn.attachmentsOrphanTTLSeconds == 86400 && builtIn.attachmentsRetentionDays == 30)
        #expect(documented.attachmentsStorage == builtIn.attachmentsStorage)
        #expect(documented.attachmentsPath == builtIn.attachmentsPath)
        #expect(documented.attachmentsOrphanTTLSeconds == builtIn.attachmentsOrphanTTLSeconds)
        #expect(documented.attachmentsRetentionDays == builtIn.attachmentsRetentionDays)
    }

    @Test func valuesApplyFromTheFileAndTheEnvironmentAndAreChecked() throws {
        var c = Configuration()
        try c.apply(
            file: ConfigFileParser.parse(
                "[attachments]\nstorage = \"filesystem\"\npath = \"/srv/files\"\nretention_days = 0\n", source: "t.toml"
            ))
        #expect(c.attachmentsStorage == "filesystem" && c.attachmentsPath == "/srv/files")
        #expect(c.attachmentsRetentionDays == 0)
        try c.apply(environment: ["SWITCHBOARD_ATTACHMENTS_ORPHAN_TTL_S": "3600"])
        #expect(c.attachmentsOrphanTTLSeconds == 3600)
        let storage = #expect(throws: ConfigError.self) {
            try c.apply(file: ConfigFileParser.parse("[attachments]\nstorage = \"s3\"\n", source: "t.toml"))
        }
        #expect(storage?.key == "attachments.storage")
        let ttl = #expect(throws: ConfigError.self) {
            try c.apply(environment: ["SWITCHBOARD_ATTACHMENTS_ORPHAN_TTL_S": "10"])
        }
        #expect(ttl?.key == "attachments.orphan_ttl_s")
    }

    /// A tool reading a few keys does not need the gateway's whole configuration (a secret, say).
    @Test func loadingWithoutCrossChecks() throws {
        let environment = ["SWITCHBOARD_DATABASE_URL": "postgresql://x@127.0.0.1/db"]
        #expect(throws: ConfigError.self) {
            try ConfigurationLoader.load(file: "/dev/null", environment: environment, overrides: .init())
        }
        let loaded = try ConfigurationLoader.load(
            file: "/dev/null", environment: environment, overrides: .init(), validating: false)
        #expect(loaded.databaseURL == "postgresql://x@127.0.0.1/db")
    }
}
