import SwitchboardWebhooks

#if canImport(Glibc)
import Glibc
#endif

extension TargetAddress {
    /// The address in a `sockaddr_in` or `sockaddr_in6` at `raw`; nil for other families.
    init?(socketAddress raw: UnsafeRawPointer, family: Int32) {
        switch family {
        case AF_INET:
            let address = raw.loadUnaligned(as: sockaddr_in.self).sin_addr
            self.init(bytes: withUnsafeBytes(of: address) { Array($0) })
        case AF_INET6:
            let address = raw.loadUnaligned(as: sockaddr_in6.self).sin6_addr
            self.init(bytes: withUnsafeBytes(of: address) { Array($0) })
        default:
            return nil
        }
    }
}
