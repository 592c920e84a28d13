import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// One `NOTIFY` received on a connection that `LISTEN`s.
public struct PostgresNotification: Sendable {
    public let channel: String
    public let payload: [UInt8]
    /// The server process that sent it.
    public let senderPID: Int32
}

extension PostgresConnection {
    /// The notifications that have arrived (after `consumeInput`, or with the
    /// results of a query), oldest first; empty when there are none.
    public func notifications() -> [PostgresNotification] {
        var received: [PostgresNotification] = []
        while let raw = PQnotifies(connection) {
            let notification = raw.pointee
            let payload = UnsafeRawBufferPointer(start: notification.extra, count: strlen(notification.extra))
            received.append(
                PostgresNotification(
                    channel: String(cString: notification.relname), payload: [UInt8](payload),
                    senderPID: notification.be_pid))
            PQfreemem(raw)
        }
        return received
    }
}
