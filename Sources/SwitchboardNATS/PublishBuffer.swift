/// Publications encoded as PUB frames, in order, and how far they have been
/// written. It remembers where each frame ends so that a connection lost in
/// the middle of a frame costs nothing but a resend: the frames written in
/// full are gone (NATS core delivers at most once), the one cut short is sent
/// again whole on the next connection, and the server never sees half a frame
/// followed by the next one.
///
/// Frames are appended into one contiguous array, so publishing allocates
/// nothing once the buffer has grown to its working size, and the client's
/// thread writes everything queued with one call.
struct PublishBuffer {
    private(set) var bytes: [UInt8] = []
    /// Where each frame ends in `bytes`.
    private var frameEnds: [Int] = []
    /// How many frames, from the first, have been written in full.
    private var sentFrames = 0
    /// Bytes written: may stop inside a frame.
    private(set) var written = 0

    /// Whether every frame has been written.
    var isEmpty: Bool { sentFrames == frameEnds.count }
    /// Frames not yet written in full.
    var unsentFrames: Int { frameEnds.count - sentFrames }
    /// The bytes still to write.
    var unsent: ArraySlice<UInt8> { bytes[written...] }

    mutating func append(subject: String, payload: [UInt8]) {
        NATSEncoding.appendPublication(subject: subject, payload: payload, to: &bytes)
        frameEnds.append(bytes.count)
    }

    /// Moves every frame of `other` (a buffer nothing was written from) after
    /// this buffer's own, leaving `other` empty. When this buffer has nothing
    /// left to write, the two swap storage instead of copying.
    mutating func moveAll(from other: inout PublishBuffer) {
        precondition(other.written == 0, "frames of a buffer being written cannot move")
        if isEmpty {
            removeAll()
            swap(&self, &other)
            return
        }
        compact()
        let base = bytes.count
        bytes.append(contentsOf: other.bytes)
        for end in other.frameEnds { frameEnds.append(base + end) }
        other.removeAll()
    }

    /// Records that `count` more bytes were written; returns how many frames
    /// that completed and their size in bytes.
    mutating func didWrite(_ count: Int) -> (frames: Int, bytes: Int) {
        guard count > 0 else { return (0, 0) }
        let framesBefore = sentFrames
        let sentBefore = sentBytes
        written += count
        while sentFrames < frameEnds.count && frameEnds[sentFrames] <= written { sentFrames += 1 }
        let completed = (sentFrames - framesBefore, sentBytes - sentBefore)
        if isEmpty { removeAll() }
        return completed
    }

    /// After a lost connection: the frame cut short will be written again from its start.
    mutating func rewind() {
        written = sentBytes
    }

    mutating func removeAll() {
        // A buffer that grew during a long outage gives its memory back.
        let keep = bytes.capacity <= 4 << 20
        bytes.removeAll(keepingCapacity: keep)
        frameEnds.removeAll(keepingCapacity: keep)
        sentFrames = 0
        written = 0
    }

    /// Bytes of the frames written in full: where the first unsent frame starts.
    private var sentBytes: Int { sentFrames == 0 ? 0 : frameEnds[sentFrames - 1] }

    /// Drops the frames written in full once they are at least half of the
    /// buffer, so the bytes moved stay proportional to the bytes written.
    private mutating func compact() {
        let consumed = sentBytes
        guard consumed > 0 && consumed * 2 >= bytes.count else { return }
        bytes.removeFirst(consumed)
        frameEnds.removeFirst(sentFrames)
        for index in frameEnds.indices { frameEnds[index] -= consumed }
        written -= consumed
        sentFrames = 0
    }
}
