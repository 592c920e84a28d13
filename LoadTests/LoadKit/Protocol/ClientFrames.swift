/// The frames a simulated widget or console sends (docs/protocol.md, "Client to
/// server"). `send` is written into a reused buffer: it is the hot one.
///
/// The harness carries its own timing in protocol fields: a send's `ref` is
/// `r` + the scheduled send instant (monotonic ns), copied by the gateway into
/// the `ack`; the `body` starts with `t` + the same instant, so every
/// delivery carries it too. `client_msg_id` is the sender's index and counter
/// in hex, which the database check reads back.
public enum ClientFrames {
    public static func hello(token: String) -> String {
        #"{"type":"hello","token":"\#(token)"}"#
    }

    public static func createSession(title: String) -> String {
        #"{"type":"session.create","ref":"setup","title":"\#(title)"}"#
    }

    public static func join(sessionID: String, since: Int64) -> String {
        #"{"type":"join","ref":"setup","session_id":"\#(sessionID)","since_seq":\#(since)}"#
    }

    public static func typing(sessionID: String, state: Bool) -> String {
        #"{"type":"typing","session_id":"\#(sessionID)","state":\#(state)}"#
    }

    public static func read(sessionID: String, seq: Int64) -> String {
        #"{"type":"read","session_id":"\#(sessionID)","seq":\#(seq)}"#
    }

    /// The ref of the scenarios' reads (`--reads`): an error carrying it is a refused read.
    public static let readRef = "read"

    /// A `read` with `readRef`, for an error to be told from a refused send.
    public static func read(sessionID: String, seq: Int64, ref: String) -> String {
        #"{"type":"read","ref":"\#(ref)","session_id":"\#(sessionID)","seq":\#(seq)}"#
    }

    public static func leave(sessionID: String) -> String {
        #"{"type":"leave","session_id":"\#(sessionID)"}"#
    }

    public static let ping = #"{"type":"ping"}"#
    public static let inboxSubscribe = #"{"type":"inbox.subscribe"}"#

    /// The `client_msg_id` of a sender's n-th message.
    @inline(__always)
    public static func messageID(sender: Int, counter: Int) -> UInt64 {
        UInt64(sender) << 24 | UInt64(counter & 0xFF_FFFF)
    }

    public static func appendSend(
        to out: inout [UInt8], scheduled: UInt64, sessionID: [UInt8], messageID: UInt64, bodyBytes: Int
    ) {
        out.append(contentsOf: #"{"type":"send","ref":"r"#.utf8)
        appendDecimal(scheduled, to: &out)
        out.append(contentsOf: #"","session_id":""#.utf8)
        out.append(contentsOf: sessionID)
        out.append(contentsOf: #"","client_msg_id":""#.utf8)
        appendHex(messageID, to: &out)
        out.append(contentsOf: #"","body":"t"#.utf8)
        let bodyStart = out.count - 1
        appendDecimal(scheduled, to: &out)
        let padding = bodyBytes - (out.count - bodyStart)
        if padding > 0 {
            out.append(UInt8(ascii: " "))
            out.append(contentsOf: repeatElement(UInt8(ascii: "x"), count: padding - 1))
        }
        out.append(contentsOf: #""}"#.utf8)
    }

    static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    static func appendHex(_ value: UInt64, to out: inout [UInt8]) {
        let digits: StaticString = "0123456789abcdef"
        var shift = 60
        while shift > 0 && (value >> UInt64(shift)) == 0 { shift -= 4 }
        while shift >= 0 {
            out.append(digits.utf8Start[Int((value >> UInt64(shift)) & 0xF)])
            shift -= 4
        }
    }

    /// The decimal after a one-letter prefix (`r123`, `t123 xxx`), or nil.
    public static func stampedInstant(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, prefix: UInt8) -> UInt64? {
        guard range.count > 1, bytes[range.lowerBound] == prefix, let base = bytes.baseAddress else { return nil }
        var value: UInt64 = 0
        var index = range.lowerBound + 1
        // Eight digits at a time while a whole word of them is there (an
        // instant has 10 to 20): read once per delivery in a fan-out run.
        while range.upperBound - index >= 8 {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let digits = word &- 0x3030_3030_3030_3030
            // Every byte 0...9 after the subtraction (no borrow, no byte above 9).
            guard word & 0xF0F0_F0F0_F0F0_F0F0 == 0x3030_3030_3030_3030,
                (digits &+ 0x7676_7676_7676_7676) & 0x8080_8080_8080_8080 == 0
            else { break }
            value = value &* 100_000_000 &+ eightDigits(digits)
            index += 8
        }
        while index < range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            if digit >= 10 { break }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        return index > range.lowerBound + 1 ? value : nil
    }

    /// Eight decimal digits (byte values 0...9, the first in the lowest byte) as a number.
    @inline(__always)
    private static func eightDigits(_ digits: UInt64) -> UInt64 {
        // Pairs, then fours, then the eight: each step multiplies the higher part by its weight.
        let pairs = (digits &* 10) &+ (digits >> 8)
        let fours = ((pairs & 0x00FF_00FF_00FF_00FF) &* 100) &+ ((pairs >> 16) & 0x00FF_00FF_00FF_00FF)
        let quads = fours & 0x0000_FFFF_0000_FFFF
        return (quads & 0xFFFF) &* 10_000 &+ (quads >> 32)
    }

    /// A hex `client_msg_id` back to its number, or nil when it is not one of ours.
    public static func parseMessageID<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= 16 else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt64(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }
}
