/// One chat session as the harness tracks it: its id, and every seq the
/// gateway acked for it with the message it acked, for the database check.
struct SessionState {
    var id = ""
    var idBytes: [UInt8] = []
    /// `ledger[seq - 1]` is the acked message's id number; 0 where none was acked.
    var ledger: [UInt64] = []
    var maxAckedSeq: Int64 = 0

    mutating func assign(id bytes: [UInt8]) {
        idBytes = bytes
        id = String(decoding: bytes, as: UTF8.self)
    }

    enum AckRecord { case recorded, repeated, conflicting }

    /// Records an ack: `repeated` when this seq was already acked for this
    /// message, `conflicting` when for another one (or the seq is not valid).
    mutating func recordAck(seq: Int64, messageID: UInt64) -> AckRecord {
        guard seq >= 1 else { return .conflicting }
        let slot = Int(seq - 1)
        if slot >= ledger.count { ledger.append(contentsOf: repeatElement(0, count: slot + 1 - ledger.count)) }
        if ledger[slot] == messageID { return .repeated }
        if ledger[slot] != 0 { return .conflicting }
        ledger[slot] = messageID
        maxAckedSeq = max(maxAckedSeq, seq)
        return .recorded
    }
}
