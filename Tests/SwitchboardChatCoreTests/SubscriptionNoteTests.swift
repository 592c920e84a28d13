import SwitchboardChat
import Testing

@testable import SwitchboardChatCore

/// A visitor's subscription counts a private note's seq as had and never
/// hands it to be written, whether it arrives live, held behind a gap, or
/// during the join's replay; an operator's writes it like any message.
@Suite struct SubscriptionNoteTests {
    private func frame(_ seq: Int64) -> SessionFrame { SubscriptionFixture.frame(seq) }
    private func note(_ seq: Int64) -> SessionFrame { SubscriptionFixture.note(seq) }

    @Test func aLiveNoteIsWithheldFromAVisitorAndWrittenToStaff() {
        let visitor = SubscriptionFixture.subscription(.live(lastSeq: 1), seesNotes: false)
        let staff = SubscriptionFixture.subscription(.live(lastSeq: 1))
        #expect(visitor.offer(note(2), holdLimit: 10) == .withhold)
        #expect(staff.offer(note(2), holdLimit: 10) == .write)
        // The next message follows on for both: no gap, no read of the database.
        #expect(visitor.offer(frame(3), holdLimit: 10) == .write)
        #expect(staff.offer(frame(3), holdLimit: 10) == .write)
        #expect(visitor.lastSeq == 3 && staff.lastSeq == 3)
        #expect(visitor.offer(note(2), holdLimit: 10) == .skip, "a repeat is had already")
    }

    @Test func aNoteHeldBehindAGapIsNeverReleasedToAVisitor() {
        let visitor = SubscriptionFixture.subscription(.live(lastSeq: 1), seesNotes: false)
        #expect(visitor.offer(note(3), holdLimit: 10) == .gap)
        #expect(visitor.offer(frame(4), holdLimit: 10) == .hold)
        #expect(visitor.offer(note(5), holdLimit: 10) == .hold)
        #expect(visitor.offer(frame(6), holdLimit: 10) == .hold)
        // The missing message comes from the database's read.
        #expect(visitor.offer(frame(2), holdLimit: 10) == .write)
        #expect(visitor.released().map(\.seq) == [4, 6])
        #expect(!visitor.isRepairing && visitor.lastSeq == 6)

        // The missing one a note itself: withheld, and what follows is released.
        let other = SubscriptionFixture.subscription(.live(lastSeq: 1), seesNotes: false)
        #expect(other.offer(frame(3), holdLimit: 10) == .gap)
        #expect(other.offer(note(2), holdLimit: 10) == .withhold)
        #expect(other.released().map(\.seq) == [3])
        #expect(other.lastSeq == 3)
    }

    @Test func notesHeldDuringTheReplayGoOutToStaffOnly() {
        let visitor = SubscriptionFixture.subscription(.replaying([]), seesNotes: false)
        let staff = SubscriptionFixture.subscription(.replaying([]))
        for subscription in [visitor, staff] {
            for frame in [note(5), frame(6), note(7)] { #expect(subscription.offer(frame, holdLimit: 10) == .hold) }
        }
        #expect(visitor.goLive(after: 4).map(\.seq) == [6])
        #expect(staff.goLive(after: 4).map(\.seq) == [5, 6, 7])
        #expect(visitor.lastSeq == 7 && staff.lastSeq == 7)
    }
}
