import SwitchboardSystem

/// Filesystem storage: the upload is written to `<path>/tmp/<id>.part` as it
/// comes; at the end it is fsynced, renamed into `<path>/<hh>/<id>` (with its
/// thumbnail beside it) and the folder fsynced, before the row is inserted.
final class FileUploadSink: UploadSink {
    private let id: String
    private let layout: FileLayout
    private var file: OpenFile?
    private var placed = false

    init(id: String, _ context: AttachmentWorkerContext) throws(AttachmentStoreError) {
        guard let layout = context.layout else { throw .unavailable("filesystem storage has no path") }
        self.id = id
        self.layout = layout
        do {
            if !context.temporaryFolderReady {
                try Files.makeFolders(layout.temporaryFolder)
                context.temporaryFolderReady = true
            }
            file = try OpenFile.create(layout.partial(id))
        } catch {
            throw .unavailable(error.description)
        }
    }

    private func open() throws(AttachmentStoreError) -> OpenFile {
        guard let file else { throw .unavailable("attachment \(id): its file is closed") }
        return file
    }

    func append(_ bytes: [UInt8], _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int {
        let file = try open()
        do { try file.write(bytes) } catch { throw .unavailable(error.description) }
        return bytes.count
    }

    func seal(_ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> Int {
        let file = try open()
        do { try file.fsync() } catch { throw .unavailable(error.description) }
        return 0
    }

    func readAll(size: Int64, _ context: AttachmentWorkerContext) throws(AttachmentStoreError) -> [UInt8] {
        let file = try open()
        do { return try file.read(at: 0, count: Int(size)) } catch { throw .unavailable(error.description) }
    }

    func place(thumbnail: [UInt8]?, _ context: AttachmentWorkerContext) throws(AttachmentStoreError) {
        file = nil
        do {
            if let thumbnail {
                let part = try OpenFile.create(layout.partialThumbnail(id))
                try part.write(thumbnail)
                try part.fsync()
            }
            let folder = layout.folder(id)
            // A new folder is itself an entry of the root, made durable before anything relies on it.
            if try Files.mkdir(folder) { try Files.fsyncFolder(layout.root) }
            placed = true
            try Files.rename(layout.partial(id), layout.path(id, variant: 0))
            if thumbnail != nil { try Files.rename(layout.partialThumbnail(id), layout.path(id, variant: 1)) }
            try Files.fsyncFolder(folder)
        } catch {
            throw .unavailable(error.description)
        }
    }

    var commitShare: (chunks: Int32?, tail: [UInt8]?) { (nil, nil) }

    func committed() -> Int { 0 }

    func discard(_ context: AttachmentWorkerContext) {
        file = nil
        var paths = [layout.partial(id), layout.partialThumbnail(id)]
        if placed { paths += [layout.path(id, variant: 0), layout.path(id, variant: 1)] }
        for path in paths { _ = try? Files.unlink(path) }
    }
}
