import SwitchboardDeflate

/// Data frames: reassembly, inflation and UTF-8 validation of messages.
extension WebSocketSession {
    /// Handles one payload chunk of the current data frame.
    func data(
        _ chunk: UnsafeRawBufferPointer, complete: Bool, onMessage: (WebSocketOpcode, UnsafeRawBufferPointer) -> Void
    ) throws(WebSocketError) {
        let messageEnds = complete && frame.fin
        if messageCompressed {
            try inflate(chunk)
            if messageEnds {
                try finishInflating()
                try deliverAssembled(onMessage)
            }
            return
        }
        // RFC 6455 8.1: text must be UTF-8; checked chunk by chunk to fail fast.
        if messageOpcode == .text {
            guard validator.validate(chunk) else { throw .invalidData("text message is not valid UTF-8") }
        }
        if messageEnds && messageBuffer.isEmpty && chunk.count == frame.payloadLength {
            // Common case: the whole message is this one frame, all in this read.
            // Hand over the unmasked bytes where they lie.
            guard messageOpcode != .text || validator.isComplete else {
                throw .invalidData("text message ends inside a code point")
            }
            let opcode = messageOpcode!
            messageOpcode = nil
            onMessage(opcode, chunk)
            return
        }
        messageBuffer.append(contentsOf: chunk)
        if messageEnds { try deliverAssembled(onMessage) }
    }

    /// Inflates compressed payload bytes into the assembly buffer, enforcing the
    /// message limit as the output grows (a decompression bomb stops there).
    private func inflate(_ chunk: UnsafeRawBufferPointer) throws(WebSocketError) {
        guard chunk.count > 0 else { return }
        let inflater = try obtainInflater()
        let before = messageBuffer.count
        do throws(DeflateError) {
            try inflater.inflate(chunk, limit: configuration.maxMessageBytes, into: &messageBuffer)
        } catch {
            throw Self.map(error)
        }
        try validateInflated(from: before)
    }

    /// RFC 7692 7.2.2: append the stripped `00 00 ff ff` and inflate to the end.
    private func finishInflating() throws(WebSocketError) {
        let inflater = try obtainInflater()
        let before = messageBuffer.count
        do throws(DeflateError) {
            try inflater.finishMessage(limit: configuration.maxMessageBytes, into: &messageBuffer)
        } catch {
            throw Self.map(error)
        }
        try validateInflated(from: before)
    }

    private func validateInflated(from start: Int) throws(WebSocketError) {
        guard messageOpcode == .text, messageBuffer.count > start else { return }
        let valid = messageBuffer.withUnsafeBytes { validator.validate(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        guard valid else { throw .invalidData("text message is not valid UTF-8") }
    }

    /// Delivers the message assembled in `messageBuffer`, then keeps the buffer
    /// for the next message only if it is small.
    private func deliverAssembled(
        _ onMessage: (WebSocketOpcode, UnsafeRawBufferPointer) -> Void
    )
        throws(WebSocketError)
    {
        guard messageOpcode != .text || validator.isComplete else {
            throw .invalidData("text message ends inside a code point")
        }
        let opcode = messageOpcode!
        messageOpcode = nil
        // Move the buffer out so the callback may safely use the session.
        var message: [UInt8] = []
        swap(&message, &messageBuffer)
        message.withUnsafeBytes { onMessage(opcode, $0) }
        if message.capacity <= Self.retainedBufferCapacity && messageBuffer.isEmpty {
            message.removeAll(keepingCapacity: true)
            swap(&message, &messageBuffer)
        }
    }

    private func obtainInflater() throws(WebSocketError) -> MessageInflater {
        if let inflater { return inflater }
        guard let deflate else { throw .protocolError("compressed message without permessage-deflate") }
        do throws(DeflateError) {
            let created = try MessageInflater(
                windowBits: deflate.clientMaxWindowBits, noContextTakeover: deflate.clientNoContextTakeover)
            inflater = created
            return created
        } catch {
            throw Self.map(error)
        }
    }

    static func map(_ error: DeflateError) -> WebSocketError {
        switch error {
        case .tooLarge: return .messageTooBig
        // RFC 7692 8.1 leaves the code open; 1007 says "data inconsistent with its type".
        case .corrupt: return .invalidData("compressed message does not inflate")
        case .zlib(let code): return .internalError("zlib error \(code)")
        }
    }
}
