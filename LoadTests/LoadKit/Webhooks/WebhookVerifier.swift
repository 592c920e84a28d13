import SwitchboardCrypto

/// Standard Webhooks signatures as a receiver checks them (PROTOCOL.md,
/// "Webhooks"): `webhook-signature` holds one or more space-separated
/// `v1,<base64>` entries (two during a secret's rotation), each the
/// HMAC-SHA256 of `id.timestamp.body` keyed with the secret's bytes: the
/// base64 after `whsec_`. One matching entry is enough.
public struct WebhookVerifier: Sendable {
    public let key: [UInt8]

    public init(key: [UInt8]) {
        self.key = key
    }

    /// From `whsec_` + base64 of the key; nil for anything else.
    public init?(secret: String) {
        guard secret.hasPrefix("whsec_"), let key = Base64.decode(secret.dropFirst(6)), !key.isEmpty else {
            return nil
        }
        self.key = key
    }

    /// The HMAC-SHA256 of `id.timestamp.body`.
    public func digest(
        id: some Collection<UInt8>, timestamp: some Collection<UInt8>, body: some Collection<UInt8>
    ) -> [UInt8] {
        var message: [UInt8] = []
        message.reserveCapacity(id.count + timestamp.count + body.count + 2)
        message.append(contentsOf: id)
        message.append(UInt8(ascii: "."))
        message.append(contentsOf: timestamp)
        message.append(UInt8(ascii: "."))
        message.append(contentsOf: body)
        return HMACSHA256.authenticate(message: message, key: key)
    }

    /// `v1,<base64>`: what a sender puts in `webhook-signature`.
    public func signature(id: String, timestamp: String, body: some Collection<UInt8>) -> String {
        "v1," + Base64.encode(digest(id: Array(id.utf8), timestamp: Array(timestamp.utf8), body: body))
    }

    /// Whether an entry of `header` signs the request; entries of other
    /// versions than v1 are skipped, as the standard says.
    public func verify(
        id: some Collection<UInt8>, timestamp: some Collection<UInt8>, body: some Collection<UInt8>,
        header: some Collection<UInt8>
    ) -> Bool {
        Self.header(header, signs: digest(id: id, timestamp: timestamp, body: body))
    }

    /// The same check with the key made ready once, for one thread's many
    /// requests (the receiver's loop); nil if OpenSSL cannot set it up.
    public func prepared() -> Prepared? {
        (try? HMACSHA256Key(key: key)).map(Prepared.init)
    }

    /// `verify` over byte slices of one request, with HMAC keyed once: the
    /// one-shot sets the key up anew for every request (OpenSSL 3: 1.7 µs for
    /// a 640-byte body, 0.7 µs keyed once). Not thread-safe.
    public final class Prepared {
        private let key: HMACSHA256Key

        init(_ key: HMACSHA256Key) {
            self.key = key
        }

        public func verify(
            id: ArraySlice<UInt8>, timestamp: ArraySlice<UInt8>, body: ArraySlice<UInt8>,
            header: some Collection<UInt8>
        ) -> Bool {
            // OpenSSL refusing counts as a bad signature (answered 401, counted by the ledger).
            guard
                let expected = try? key.authenticate(
                    slices: id, WebhookVerifier.dot, timestamp, WebhookVerifier.dot, body)
            else { return false }
            return WebhookVerifier.header(header, signs: expected)
        }
    }

    /// Whether an entry of `header` is `v1,` and the base64 of `expected`, padded, as the
    /// specification spells it (Standard Webhooks: standard alphabet, with padding). Compared as
    /// text: encoding the 32 bytes once costs less than decoding every entry.
    private static func header(_ header: some Collection<UInt8>, signs expected: [UInt8]) -> Bool {
        let wanted = Array(Base64.encode(expected).utf8)
        for entry in header.split(separator: UInt8(ascii: " ")) {
            guard entry.count == version.count + wanted.count, entry.starts(with: version) else { continue }
            if HMACSHA256.constantTimeEqual(Array(entry.dropFirst(version.count)), wanted) { return true }
        }
        return false
    }

    private static let version = Array("v1,".utf8)
    private static let dot: ArraySlice<UInt8> = [UInt8(ascii: ".")]
}

/// The instants a webhook carries, as text: the envelope's `created_at`
/// (RFC 3339 in UTC with milliseconds, `2026-11-24T10:00:00.000Z`) and
/// `webhook-timestamp` (Unix seconds).
public enum WebhookTime {
    /// Microseconds since the epoch of an RFC 3339 UTC time: `Z` or `+00:00`,
    /// any number of fraction digits (none included); nil for anything else.
    public static func microseconds(rfc3339 text: some Collection<UInt8>) -> Int64? {
        let bytes = Array(text)
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84 || bytes[10] == 116,
            bytes[13] == 58, bytes[16] == 58
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction: Int64 = 0
        if bytes[index] == 46 {
            index += 1
            var scale: Int64 = 100_000
            let start = index
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Int64(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        let zone = bytes[index...]
        guard zone.elementsEqual([90]) || zone.elementsEqual([122]) || zone.elementsEqual(Array("+00:00".utf8)) else {
            return nil
        }
        let days = DriveClock.daysFromCivil(year: year, month: month, day: day)
        return (days * 86400 + hour * 3600 + minute * 60 + second) * 1_000_000 + fraction
    }

    /// `created_at` of a webhook body: the first `"created_at":"..."` member,
    /// which in the protocol's envelope comes before `data` (whose message has
    /// its own). Microseconds since the epoch, or nil.
    public static func createdAt(body: some Collection<UInt8>) -> Int64? {
        let bytes = Array(body)
        guard let start = find(needle, in: bytes) else { return nil }
        let from = start + needle.count
        guard let end = bytes[from...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return microseconds(rfc3339: bytes[from..<end])
    }

    /// `webhook-timestamp`: whole Unix seconds, or nil.
    public static func seconds(_ text: some Collection<UInt8>) -> Int64? {
        guard !text.isEmpty, text.count <= 12 else { return nil }
        var value: Int64 = 0
        for byte in text {
            guard byte >= 48 && byte <= 57 else { return nil }
            value = value * 10 + Int64(byte - 48)
        }
        return value
    }

    /// RFC 3339 with milliseconds in UTC of `microseconds` since the epoch.
    public static func rfc3339(microseconds: Int64) -> String {
        let seconds = microseconds / 1_000_000
        let millis = Int((microseconds % 1_000_000) / 1000)
        let (year, month, day) = civil(days: seconds / 86400)
        let second = Int(seconds % 86400)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(Int(year), 4))-\(pad(Int(month), 2))-\(pad(Int(day), 2))T\(pad(second / 3600, 2)):"
            + "\(pad(second / 60 % 60, 2)):\(pad(second % 60, 2)).\(pad(millis, 3))Z"
    }

    /// The date of a day count from 1970-01-01 (H. Hinnant's algorithm, the inverse of `daysFromCivil`).
    static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static let needle = Array(#""created_at":""#.utf8)

    /// The first index of `needle` in `bytes`.
    static func find(_ needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var index = 0
        let last = bytes.count - needle.count
        while index <= last {
            if bytes[index] == first {
                var matched = 1
                while matched < needle.count && bytes[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }
}
