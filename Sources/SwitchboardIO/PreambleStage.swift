/// A connection's preamble stage (`ConnectionIO.preambleReader`): offers the
/// first bytes to the reader, keeps a preamble that arrives in pieces, and
/// passes on what follows it once the reader is done. One rule for every
/// connection, whatever carries its bytes.
public struct PreambleStage {
    /// What arrived so far of a preamble that came in pieces (the reader bounds it).
    private var kept: [UInt8] = []

    public init() {}

    /// Offers `bytes` to `connection`'s preamble reader, if it still has one,
    /// and hands what follows the preamble to `deliver` while the connection is open.
    public mutating func offer<IO: ConnectionIO>(
        _ bytes: UnsafeMutableRawBufferPointer, on connection: IO,
        then deliver: (UnsafeMutableRawBufferPointer) -> Void
    ) {
        guard let reader = connection.preambleReader else { return deliver(bytes) }
        if kept.isEmpty {
            switch reader.readPreamble(UnsafeRawBufferPointer(bytes), on: connection) {
            case .needMore:
                kept.append(contentsOf: bytes)
            case .done(let length):
                connection.preambleReader = nil
                if connection.isOpen && length < bytes.count {
                    deliver(UnsafeMutableRawBufferPointer(rebasing: bytes[length...]))
                }
            }
            return
        }
        kept.append(contentsOf: bytes)
        let outcome = kept.withUnsafeBytes { reader.readPreamble($0, on: connection) }
        guard case .done(let length) = outcome else { return }
        connection.preambleReader = nil
        var rest = Array(kept[min(length, kept.count)...])
        kept = []
        if connection.isOpen && !rest.isEmpty { rest.withUnsafeMutableBytes { deliver($0) } }
    }
}
