import COpenSSL

/// Operations on OpenSSL memory BIOs (`BIO_s_mem`), the byte queues between a connection and its socket.
/// Caseless so the calls read like the C API they wrap.
enum MemoryBIO {
    /// A drained BIO whose buffer grew past this is replaced by a fresh one. Bursts (the handshake flight,
    /// large messages) then give their memory back, while small chat traffic keeps reusing one buffer.
    static let retainedCapacityLimit = 4096

    static func make() throws(TLSError) -> OpaquePointer {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw TLSError.fromErrorQueue("cannot allocate memory BIO")
        }
        return bio
    }

    static func pending(_ bio: OpaquePointer) -> Int {
        Int(copenssl_BIO_pending(bio))
    }

    /// Appends bytes; a memory BIO grows as needed, so this only fails when allocation fails.
    static func write(_ bio: OpaquePointer, _ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            // BIO_write takes an Int32 length; feed huge inputs in pieces.
            let chunk = min(bytes.count - offset, Int(Int32.max))
            let written = BIO_write(bio, bytes.baseAddress! + offset, Int32(chunk))
            precondition(written == Int32(chunk), "memory BIO write failed (out of memory)")
            offset += chunk
        }
    }

    /// The unread bytes, contiguous and without copying; valid until the BIO is next changed.
    static func peek(_ bio: OpaquePointer) -> UnsafeRawBufferPointer {
        var data: UnsafeMutablePointer<CChar>? = nil
        let count = copenssl_BIO_get_mem_data(bio, &data)
        guard count > 0, let data else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: data, count: count)
    }

    /// Removes `count` bytes from the front. A memory BIO has no skip operation, so they are read into a
    /// stack scratch area: one memcpy, no heap allocation.
    static func discard(_ bio: OpaquePointer, _ count: Int) {
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 1) { scratch in
            var remaining = count
            while remaining > 0 {
                let chunk = min(remaining, scratch.count)
                let read = BIO_read(bio, scratch.baseAddress, Int32(chunk))
                precondition(read == Int32(chunk), "memory BIO holds fewer bytes than reported")
                remaining -= chunk
            }
        }
    }

    /// Bytes the BIO's buffer has allocated, read or not.
    static func capacity(_ bio: OpaquePointer) -> Int {
        var buffer: UnsafeMutablePointer<BUF_MEM>? = nil
        _ = copenssl_BIO_get_mem_ptr(bio, &buffer)
        return buffer.map { Int($0.pointee.max) } ?? 0
    }

    /// Makes reads of an empty BIO report end of file instead of "retry later".
    static func markEndOfInput(_ bio: OpaquePointer) {
        _ = copenssl_BIO_set_mem_eof_return(bio, 0)
    }
}
