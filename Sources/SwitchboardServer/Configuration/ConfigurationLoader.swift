import SwitchboardSystem

/// Command-line values that override the file and the environment.
public struct ConfigurationOverrides: Sendable {
    public var listen: [String]
    public var tlsListen: [String]
    public var tlsCertificate: String?
    public var tlsPrivateKey: String?
    public var databaseURL: String?
    public var jwtSecret: String?
    public var threads: Int?
    public var echoEndpoint: Bool?
    public var devTokens: Bool?
    public var clusterBus: String?
    public var natsURL: String?
    public var nodeID: String?

    public init(
        listen: [String] = [], tlsListen: [String] = [], tlsCertificate: String? = nil, tlsPrivateKey: String? = nil,
        databaseURL: String? = nil, jwtSecret: String? = nil, threads: Int? = nil, echoEndpoint: Bool? = nil,
        devTokens: Bool? = nil, clusterBus: String? = nil, natsURL: String? = nil, nodeID: String? = nil
    ) {
        self.listen = listen
        self.tlsListen = tlsListen
        self.tlsCertificate = tlsCertificate
        self.tlsPrivateKey = tlsPrivateKey
        self.databaseURL = databaseURL
        self.jwtSecret = jwtSecret
        self.threads = threads
        self.echoEndpoint = echoEndpoint
        self.devTokens = devTokens
        self.clusterBus = clusterBus
        self.natsURL = natsURL
        self.nodeID = nodeID
    }

    /// The overrides as file-style values, so they pass the same checks.
    var values: [String: ConfigValue] {
        var v: [String: ConfigValue] = [:]
        if !listen.isEmpty { v["server.listen"] = .strings(listen) }
        if !tlsListen.isEmpty { v["tls.listen"] = .strings(tlsListen) }
        if let tlsCertificate { v["tls.certificate"] = .string(tlsCertificate) }
        if let tlsPrivateKey { v["tls.private_key"] = .string(tlsPrivateKey) }
        if let databaseURL { v["database.url"] = .string(databaseURL) }
        if let jwtSecret { v["auth.jwt_secret"] = .string(jwtSecret) }
        if let threads { v["server.threads"] = .integer(threads) }
        if let echoEndpoint { v["server.echo_endpoint"] = .boolean(echoEndpoint) }
        if let devTokens { v["auth.dev_tokens"] = .boolean(devTokens) }
        if let clusterBus { v["cluster.bus"] = .string(clusterBus) }
        if let natsURL { v["cluster.nats_url"] = .string(natsURL) }
        if let nodeID { v["cluster.node_id"] = .string(nodeID) }
        return v
    }
}

/// Builds the configuration: defaults, then the file, then the environment, then flags.
public enum ConfigurationLoader {
    public static let defaultFile = "config/switchboard.toml"

    /// `validating: false` skips the checks of keys against each other (a tool
    /// that reads a few keys must not need, say, the JWT secret); each key's
    /// own type and range are checked regardless.
    public static func load(
        file: String?, environment: [String: String], overrides: ConfigurationOverrides, validating: Bool = true
    ) throws(ConfigError) -> Configuration {
        var configuration = Configuration()
        let path =
            file ?? environment["SWITCHBOARD_CONFIG"] ?? (ThisProcess.fileExists(defaultFile) ? defaultFile : nil)
        if let path {
            guard let bytes = ThisProcess.readFile(path) else {
                throw ConfigError(key: "", message: "cannot read configuration file \(path)")
            }
            try configuration.apply(file: ConfigFileParser.parse(bytes: bytes, source: path))
        }
        try configuration.apply(environment: environment)
        try configuration.apply(file: overrides.values)
        if validating { try configuration.validate() }
        return configuration
    }
}
