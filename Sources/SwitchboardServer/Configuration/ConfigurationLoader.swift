#if canImport(Glibc)
import Glibc
#endif

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

    public init(
        listen: [String] = [], tlsListen: [String] = [], tlsCertificate: String? = nil, tlsPrivateKey: String? = nil,
        databaseURL: String? = nil, jwtSecret: String? = nil, threads: Int? = nil, echoEndpoint: Bool? = nil
    ) {
        self.listen = listen
        self.tlsListen = tlsListen
        self.tlsCertificate = tlsCertificate
        self.tlsPrivateKey = tlsPrivateKey
        self.databaseURL = databaseURL
        self.jwtSecret = jwtSecret
        self.threads = threads
        self.echoEndpoint = echoEndpoint
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
        return v
    }
}

/// Builds the configuration: defaults, then the file, then the environment, then flags.
public enum ConfigurationLoader {
    public static let defaultFile = "config/switchboard.toml"

    public static func load(
        file: String?, environment: [String: String], overrides: ConfigurationOverrides
    ) throws(ConfigError) -> Configuration {
        var configuration = Configuration()
        let path = file ?? environment["SWITCHBOARD_CONFIG"] ?? (fileExists(defaultFile) ? defaultFile : nil)
        if let path {
            guard let text = readFile(path) else {
                throw ConfigError(key: "", message: "cannot read configuration file \(path)")
            }
            try configuration.apply(file: ConfigFileParser.parse(text, source: path))
        }
        try configuration.apply(environment: environment)
        try configuration.apply(file: overrides.values)
        try configuration.validate()
        return configuration
    }

    static func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Start-up only: reads a whole small file.
    static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]) }
            if n < chunk.count { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The process environment as a dictionary.
public enum ProcessEnvironment {
    public static var current: [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
