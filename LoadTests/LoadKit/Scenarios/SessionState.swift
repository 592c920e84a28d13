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

    /// Records an ack; false when the seq was already acked for another message.
    mutating func recordAck(seq: Int64, messageID: UInt64) -> Bool {
        guard seq >= 1 else { return false }
        let slot = Int(seq - 1)
        if slot >= ledger.count { ledger.append(contentsOf: repeatElement(0, count: slot + 1 - ledger.count)) }
        if ledger[slot] != 0 && ledger[slot] != messageID { return false }
        ledger[slot] = messageID
        maxAckedSeq = max(maxAckedSeq, seq)
        return true
    }
}
