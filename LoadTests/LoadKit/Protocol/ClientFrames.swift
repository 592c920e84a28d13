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
        guard range.count > 1, bytes[range.lowerBound] == prefix else { return nil }
        var value: UInt64 = 0
        var index = range.lowerBound + 1
        while index < range.upperBound {
            let digit = bytes[index] &- UInt8(ascii: "0")
            if digit >= 10 { break }
            value = value &* 10 &+ UInt64(digit)
            index += 1
        }
        return index > range.lowerBound + 1 ? value : nil
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
