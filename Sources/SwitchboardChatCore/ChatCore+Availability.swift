import SwitchboardAuth
import SwitchboardChat
import SwitchboardRouting

/// A visitor's `availability` (PROTOCOL.md, "Routing"): after `joined` (and
/// a session it created), then whenever it changes: whether an operator is
/// available, its place while it waits, and business hours. Values come
/// from routing's board (no read); each subscription remembers what it was
/// told, so a re-check sends only what changed.
extension ChatCore {
    /// Starts telling the visitor of `subscription` (a visitor's own session only).
    func followAvailability(_ subscription: Subscription, _ identity: Identity, waiting: Bool) {
        guard identity.role == .visitor, let routing = cores.routing, subscription.availabilityWorkspace == nil else {
            return
        }
        let workspace = identity.workspaceID
        subscription.availabilityWorkspace = workspace
        // A bus that routes by workspace (NATS) brings its queue news here from now on.
        if waitingVisitors[workspace] == nil { cores.cluster?.watch(workspace: workspace) }
        waitingVisitors[workspace, default: []].append(subscription)
        routing.watchQueue(workspace, waiting: waiting)
        tellAvailability(subscription, routing.availability(in: workspace, atUnixSeconds: wallClock()), force: true)
    }

    /// Stops (the subscription left, or its connection closed).
    func unfollowAvailability(_ subscription: Subscription) {
        guard let workspace = subscription.availabilityWorkspace else { return }
        subscription.availabilityWorkspace = nil
        waitingVisitors[workspace]?.removeAll { $0 === subscription }
        if waitingVisitors[workspace]?.isEmpty == true {
            waitingVisitors[workspace] = nil
            cores.cluster?.unwatch(workspace: workspace)
        }
        cores.routing?.unwatchQueue(workspace)
    }

    /// Sends the value when it differs from the last one told (always when
    /// `force`); a session with its operator, or closed, hears nothing new
    /// until it waits again. Returns the frames written.
    @discardableResult
    func tellAvailability(_ subscription: Subscription, _ view: WorkspaceAvailability, force: Bool = false) -> Int {
        if !force, let session = directory[subscription.sessionID], session.status != .open { return 0 }
        let value = view.of(subscription.sessionID)
        guard force || value != subscription.availability else { return 0 }
        subscription.availability = value
        metrics.framesOut.increment()
        subscription.peer.sendText(encoder.availability(sessionID: subscription.sessionID, value))
        return 1
    }
}
