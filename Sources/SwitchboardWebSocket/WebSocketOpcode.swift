/// Frame opcodes (RFC 6455 5.2). Values 3-7 and 0xB-0xF are reserved and
/// rejected with 1002 by the decoder, so they have no case here.
public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// RFC 6455 5.5: control frames have the high bit of the opcode set.
    @inlinable public var isControl: Bool { rawValue & 0x8 != 0 }
}
