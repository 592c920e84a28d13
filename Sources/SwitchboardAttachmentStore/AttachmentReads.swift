import SwitchboardIdentifiers
import SwitchboardSystem

/// Lookups and range reads, on whichever worker runs them.
enum AttachmentReads {
    static func lookup(
        id: String, _ context: AttachmentWorkerContext
    ) -> Result<AttachmentRecord?, AttachmentStoreError> {
        // Ids come from URLs: anything that is not a UUID names no attachment.
        guard let id = UUIDText.canonical(id) else { return .success(nil) }
        do {
            let rows = try context.database.run(AttachmentRows.lookup, [id], retryable: true)
            return .success(rows.rowCount == 0 ? nil : AttachmentRows.record(rows))
        } catch {
            return .failure(error)
        }
    }

    static func read(
        id: String, variant: Int16, offset: Int64, length: Int, _ context: AttachmentWorkerContext
    ) -> Result<[UInt8], AttachmentStoreError> {
        guard let id = UUIDText.canonical(id), variant == 0 || variant == 1, offset >= 0, length >= 0 else {
            return .failure(.notFound)
        }
        do {
            // Only a committed row makes bytes readable (chunks and files precede it).
            let row = try context.database.run(
                "SELECT storage, CASE WHEN $2 = '0' THEN size ELSE thumbnail_size END FROM attachments WHERE id = $1",
                [id, String(variant)], retryable: true)
            guard row.rowCount == 1, let storage = row.string(0, 0), let size = row.string(0, 1).flatMap({ Int64($0) })
            else { return .failure(.notFound) }
            let count = Int(max(0, min(Int64(length), size - offset)))
            guard count > 0 else { return .success([]) }
            if storage == "filesystem" {
                return .success(try readFile(id: id, variant: variant, offset: offset, count: count, context))
            }
            return .success(try readChunks(id: id, variant: variant, offset: offset, count: count, context))
        } catch {
            return .failure(error)
        }
    }

    /// The parts of the chunks that overlap [offset, offset + count): each
    /// chunk's start is the sum of the lengths before it, so the chunk size
    /// does not matter, and substring() of an uncompressed (EXTERNAL) value
    /// fetches only the TOAST pieces it covers.
    private static func readChunks(
        id: String, variant: Int16, offset: Int64, count: Int, _ context: AttachmentWorkerContext
    ) throws(AttachmentStoreError) -> [UInt8] {
        let rows = try context.database.run(
            """
            SELECT substring(data FROM (greatest($3::bigint - start, 0) + 1)::integer
                                  FOR (least(start + length, $3::bigint + $4::bigint) - greatest(start, $3::bigint))::integer)
              FROM (SELECT n, data, octet_length(data)::bigint AS length,
                           coalesce(sum(octet_length(data)::bigint) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING
                                                                            AND 1 PRECEDING), 0) AS start
                      FROM attachment_chunks WHERE attachment_id = $1 AND variant = $2::smallint) c
             WHERE start < $3::bigint + $4::bigint AND start + length > $3::bigint
             ORDER BY n
            """, [.text(id), .text(String(variant)), .text(String(offset)), .text(String(count))],
            binaryResults: true, retryable: true)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for row in 0..<rows.rowCount { _ = rows.withBytes(row, 0) { bytes.append(contentsOf: $0) } }
        guard bytes.count == count else {
            throw .unavailable("attachment \(id): \(bytes.count) of \(count) bytes found at \(offset)")
        }
        return bytes
    }

    private static func readFile(
        id: String, variant: Int16, offset: Int64, count: Int, _ context: AttachmentWorkerContext
    ) throws(AttachmentStoreError) -> [UInt8] {
        guard let layout = context.layout else {
            throw .unavailable("attachment \(id) is in filesystem storage, which is not configured")
        }
        let path = layout.path(id, variant: variant)
        let bytes: [UInt8]
        do {
            bytes = try OpenFile.reading(path).read(at: offset, count: count)
        } catch {
            throw .unavailable(error.description)
        }
        guard bytes.count == count else { throw .unavailable("\(path) is shorter than its row says") }
        return bytes
    }
}
