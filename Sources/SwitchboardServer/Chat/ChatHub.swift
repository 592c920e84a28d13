import SwitchboardChat
import SwitchboardLoop
import SwitchboardWriter

/// One loop's view of the chat: its connections, who is joined to which
/// session, who watches which workspace's inbox, and the sends waiting for
/// their commit. Fan-out happens here: a frame encoded once is written to
/// every local subscriber.
///
/// Threading: confined to its loop's thread; other threads reach it only
/// through `EventLoop.execute` (hence `@unchecked Sendable`).
final class ChatHub: @unchecked Sendable {
    unowned let service: ChatService
    unowned let loop: EventLoop
    private var connections: [UInt64: ChatConnection] = [:]
    private var sessions: [String: [Subscription]] = [:]
    private var inbox: [String: [ChatConnection]] = [:]
    private var pendingSends: [UInt64: PendingSend] = [:]
    private var nextToken: UInt64 = 0
    /// Replies are encoded here, one reusable buffer per loop.
    var encoder = ServerFrameEncoder()

    init(service: ChatService, loop: EventLoop) {
        self.service = service
        self.loop = loop
    }

    // MARK: Membership

    func register(_ connection: ChatConnection) {
        connections[connection.serial] = connection
    }

    /// Forgets everything of a closed connection. (Its sends still waiting in
    /// `pendingSends` go when their result arrives: the writer answers every command.)
    func unregister(_ connection: ChatConnection) {
        connections[connection.serial] = nil
        for subscription in connection.subscriptions.values { remove(subscription) }
        if let workspace = connection.inboxWorkspace { unsubscribeInbox(connection, workspace: workspace) }
    }

    func connection(_ serial: UInt64) -> ChatConnection? { connections[serial] }

    func add(_ subscription: Subscription) {
        sessions[subscription.sessionID, default: []].append(subscription)
    }

    func remove(_ subscription: Subscription) {
        guard var list = sessions[subscription.sessionID] else { return }
        list.removeAll { $0 === subscription }
        sessions[subscription.sessionID] = list.isEmpty ? nil : list
    }

    func subscribeInbox(_ connection: ChatConnection, workspace: String) {
        inbox[workspace, default: []].append(connection)
        service.inboxSubscribed()
    }

    func unsubscribeInbox(_ connection: ChatConnection, workspace: String) {
        guard var list = inbox[workspace] else { return }
        let before = list.count
        list.removeAll { $0 === connection }
        inbox[workspace] = list.isEmpty ? nil : list
        if list.count < before { service.inboxUnsubscribed() }
    }

    // MARK: Sends awaiting their commit

    /// A token for a command handed to the writer; the result comes back with it.
    func awaitCommit(_ pending: PendingSend) -> UInt64 {
        nextToken &+= 1
        pendingSends[nextToken] = pending
        return nextToken
    }

    func abandon(token: UInt64) {
        pendingSends[token] = nil
    }

    // MARK: Delivery

    /// Acks for this loop's sends, then every frame to its local subscribers.
    func deliver(results: [WriteResult], _ delivery: LoopDelivery) {
        for result in results {
            guard let pending = pendingSends.removeValue(forKey: result.token),
                let connection = connections[pending.connection]
            else { continue }
            connection.committed(result.outcome, for: pending)
        }
        // Counted once per delivery, not per subscriber: the counter is shared by every loop.
        var delivered = 0
        if delivery.sessionFrames.count == 1, let frame = delivery.sessionFrames.first {
            for subscription in sessions[frame.sessionID] ?? []
            where subscription.connection.serial != frame.excludedConnection && subscription.offer(frame) {
                delivered += 1
            }
        } else if !delivery.sessionFrames.isEmpty {
            // A batch holding several frames for one session reaches each of its subscribers
            // in one send, in the frames' order.
            var bySession: [String: [SessionFrame]] = [:]
            for frame in delivery.sessionFrames where sessions[frame.sessionID] != nil {
                bySession[frame.sessionID, default: []].append(frame)
            }
            for (sessionID, frames) in bySession {
                guard let subscriptions = sessions[sessionID] else { continue }
                // Borrowed through buffers: copying a frame or a subscription per
                // delivery costs reference counts that a fan-out pays a million times a second.
                frames.withUnsafeBufferPointer { frames in
                    subscriptions.withUnsafeBufferPointer { subscriptions in
                        for subscription in subscriptions {
                            let serial = subscription.connection.serial
                            let deliver = {
                                for index in frames.indices
                                where frames[index].excludedConnection != serial && subscription.offer(frames[index]) {
                                    delivered += 1
                                }
                            }
                            if frames.count > 1, let socket = subscription.connection.socket {
                                socket.batchWrites(deliver)
                            } else {
                                deliver()
                            }
                        }
                    }
                }
            }
        }
        for frame in delivery.workspaceFrames {
            guard let watchers = inbox[frame.workspaceID] else { continue }
            for connection in watchers where connection.serial != frame.excludedConnection {
                delivered += 1
                connection.socket?.send(frame.frame)
            }
        }
        if delivered > 0 { service.metrics.fanoutDeliveries.increment(by: delivered) }
    }
}

/// A `send` handed to the writer, remembered until its commit is known.
struct PendingSend {
    let connection: UInt64
    let ref: String?
    let sessionID: String
}
