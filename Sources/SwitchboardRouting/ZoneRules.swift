/// A time zone's offsets from a TZif file (RFC 8536, versions 1-4), as the
/// system's tz database ships them in /usr/share/zoneinfo: the transitions
/// it lists, and its TZ string for the times after the last one. Pure: the
/// caller reads the file.
public struct ZoneRules: Sendable, Equatable {
    /// Unix seconds at which `offsets[i]` starts, ascending.
    public let transitions: [Int64]
    public let offsets: [Int]
    /// Before the first transition.
    public let initialOffset: Int
    /// After the last transition (nil: the last offset stays).
    public let rule: PosixZoneRule?

    public enum Problem: Error, Equatable {
        case notTZif
        case truncated
        case badFooter
    }

    public init(tzif bytes: [UInt8]) throws(Problem) {
        var reader = Reader(bytes: bytes)
        let version = try reader.header()
        var counts = try reader.counts()
        if version >= 0x32 {
            // Skip the 32-bit block; the 64-bit one follows with its own header.
            try reader.skip(counts.blockSize(timeBytes: 4))
            _ = try reader.header()
            counts = try reader.counts()
        }
        let timeBytes = version >= 0x32 ? 8 : 4
        var times: [Int64] = []
        for _ in 0..<counts.transitions { times.append(try reader.signed(timeBytes)) }
        var indexes: [Int] = []
        for _ in 0..<counts.transitions { indexes.append(Int(try reader.byte())) }
        var types: [Int] = []
        for _ in 0..<counts.types {
            types.append(Int(try reader.signed(4)))
            _ = try reader.byte()  // is DST
            _ = try reader.byte()  // abbreviation index
        }
        guard !types.isEmpty, indexes.allSatisfy({ $0 < types.count }) else { throw .notTZif }
        try reader.skip(
            counts.characters + counts.leapSeconds * (timeBytes + 4) + counts.standardFlags + counts.utFlags)
        var footer: PosixZoneRule?
        if version >= 0x32 {
            guard try reader.byte() == 0x0A else { throw .badFooter }
            var text: [UInt8] = []
            while true {
                let byte = try reader.byte()
                if byte == 0x0A { break }
                text.append(byte)
            }
            if !text.isEmpty {
                guard let rule = PosixZoneRule(String(decoding: text, as: UTF8.self)) else { throw .badFooter }
                footer = rule
            }
        }
        transitions = times
        offsets = indexes.map { types[$0] }
        initialOffset = types[0]
        rule = footer
    }

    /// Seconds east of UTC at `instant` (Unix seconds).
    public func offset(at instant: Int64) -> Int {
        guard let first = transitions.first, instant >= first else { return initialOffset }
        if instant >= transitions[transitions.count - 1], let rule { return rule.offset(at: instant) }
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if transitions[middle] <= instant { low = middle } else { high = middle - 1 }
        }
        return offsets[low]
    }

    private struct Counts {
        var utFlags = 0
        var standardFlags = 0
        var leapSeconds = 0
        var transitions = 0
        var types = 0
        var characters = 0

        func blockSize(timeBytes: Int) -> Int {
            transitions * timeBytes + transitions + types * 6 + characters + leapSeconds * (timeBytes + 4)
                + standardFlags + utFlags
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        mutating func byte() throws(Problem) -> UInt8 {
            guard index < bytes.count else { throw .truncated }
            defer { index += 1 }
            return bytes[index]
        }

        mutating func skip(_ count: Int) throws(Problem) {
            guard count >= 0, bytes.count - index >= count else { throw .truncated }
            index += count
        }

        mutating func signed(_ width: Int) throws(Problem) -> Int64 {
            var value: UInt64 = 0
            for _ in 0..<width { value = value << 8 | UInt64(try byte()) }
            let shift = UInt64(64 - width * 8)
            return Int64(bitPattern: value << shift) >> Int64(shift)
        }

        /// "TZif", the version byte, 15 reserved bytes.
        mutating func header() throws(Problem) -> UInt8 {
            guard bytes.count - index >= 20, Array(bytes[index..<index + 4]) == [0x54, 0x5A, 0x69, 0x66] else {
                throw .notTZif
            }
            let version = bytes[index + 4]
            guard version == 0 || (0x32...0x39).contains(version) else { throw .notTZif }
            index += 20
            return version
        }

        mutating func counts() throws(Problem) -> Counts {
            var counts = Counts()
            var values: [Int] = []
            for _ in 0..<6 {
                let value = try signed(4)
                guard value >= 0, value < 1 << 20 else { throw .notTZif }
                values.append(Int(value))
            }
            counts.utFlags = values[0]
            counts.standardFlags = values[1]
            counts.leapSeconds = values[2]
            counts.transitions = values[3]
            counts.types = values[4]
            counts.characters = values[5]
            return counts
        }
    }
}
