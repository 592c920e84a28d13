/// A `message` frame as the gateway writes it (`ServerFrameEncoder.message`:
/// type, session_id, seq, id, client_msg_id, kind, body, then what the
/// harness does not read), read member after member at the places that
/// layout puts them, through the body, as far as the general walk
/// (`ServerFrame.readMembers`) reads such a frame. A fan-out run reads a
/// million of these a second on one core: this costs a fraction of the
/// general walk and of copying its larger result. Any other layout reads as
/// nil, and the general walk then reads the frame.
struct MessageFrame {
    var sessionID: Range<Int>
    var seq: Int64
    var clientMsgID: Range<Int>
    var body: Range<Int>

    static func read(_ bytes: UnsafeRawBufferPointer) -> MessageFrame? {
        var reader = LayoutReader(bytes: bytes)
        guard reader.literal(#"{"type":"message","session_id":""#), let sessionID = reader.string(),
            reader.literal(#","seq":"#), let seq = reader.integer(),
            reader.literal(#","id":""#), reader.string() != nil,
            reader.literal(#","client_msg_id":""#), let clientMsgID = reader.string(),
            reader.literal(#","kind":""#), reader.string() != nil,
            reader.literal(#","body":""#), let body = reader.string()
        else { return nil }
        return MessageFrame(sessionID: sessionID, seq: seq, clientMsgID: clientMsgID, body: body)
    }
}

/// A cursor over a frame that expects exact bytes next: `MessageFrame`'s reader.
private struct LayoutReader {
    let bytes: UnsafeRawBufferPointer
    var index = 0

    /// Steps over `text` when the bytes at the cursor spell it: compared a
    /// word at a time in place (the literals are 7 to 32 bytes, where a call
    /// to memcmp cost more than the comparison).
    @inline(__always)
    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count, let base = bytes.baseAddress else { return false }
        let here = base + index
        let expected = UnsafeRawPointer(text.utf8Start)
        var offset = 0
        while count - offset >= 8 {
            guard
                here.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == expected.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < count {
            guard
                here.load(fromByteOffset: offset, as: UInt8.self)
                    == expected.load(fromByteOffset: offset, as: UInt8.self)
            else { return false }
            offset += 1
        }
        index += count
        return true
    }

    /// A string's content up to its closing quote, which the cursor steps over.
    mutating func string() -> Range<Int>? {
        guard let close = JSONMembers.stringEnd(bytes, index, bytes.count) else { return nil }
        defer { index = close + 1 }
        return index..<close
    }

    /// A decimal integer; nil when it is not one (JSONMembers.integer's rules).
    mutating func integer() -> Int64? {
        let start = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "-") || (bytes[index] &- UInt8(ascii: "0")) < 10 {
            index += 1
        }
        return JSONMembers.integer(bytes, start..<index)
    }
}
