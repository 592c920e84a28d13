/// What the client takes from the server's INFO: only max_payload. A
/// publication above it makes the server close the connection, and resending
/// it after every reconnect would loop forever, so `publish` refuses it.
enum NATSServerInfo {
    /// nats-server's default, assumed until an INFO says otherwise.
    static let defaultMaxPayload = 1 << 20

    /// The value of `"max_payload": <digits>` in the INFO JSON, if present.
    /// A scan rather than a JSON parser: the module depends on nothing but
    /// the system wrappers, and the server writes this key as a plain integer.
    static func maxPayload(in json: [UInt8]) -> Int? {
        let key = Array("\"max_payload\"".utf8)
        guard json.count >= key.count else { return nil }
        for keyStart in 0...(json.count - key.count) where json[keyStart..<(keyStart + key.count)].elementsEqual(key) {
            var index = keyStart + key.count
            skipBlanks(json, &index)
            guard index < json.count && json[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            skipBlanks(json, &index)
            var value = 0
            var digits = 0
            while index < json.count, case let digit = json[index] &- UInt8(ascii: "0"), digit < 10 {
                guard value < Int.max / 10 - 10 else { return nil }
                value = value * 10 + Int(digit)
                digits += 1
                index += 1
            }
            return digits > 0 && value > 0 ? value : nil
        }
        return nil
    }

    private static func skipBlanks(_ json: [UInt8], _ index: inout Int) {
        while index < json.count && (json[index] == UInt8(ascii: " ") || json[index] == UInt8(ascii: "\t")) {
            index += 1
        }
    }
}
