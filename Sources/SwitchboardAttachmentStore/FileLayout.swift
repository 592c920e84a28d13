/// Where filesystem storage keeps an attachment. Ids are canonical UUIDs
/// (checked before any path is made from one), so no name leaves its folder.
struct FileLayout: Sendable {
    let root: String

    init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    /// Uploads being written; never read, purged when abandoned.
    var temporaryFolder: String { root + "/tmp" }

    func partial(_ id: String) -> String { "\(temporaryFolder)/\(id).part" }
    func partialThumbnail(_ id: String) -> String { "\(temporaryFolder)/\(id).thumb.part" }

    /// 256 folders by the first two hex digits, so that none grows to millions of entries.
    func folder(_ id: String) -> String { "\(root)/\(id.prefix(2))" }

    /// The file of `variant` (0 the original, 1 its thumbnail).
    func path(_ id: String, variant: Int16) -> String {
        variant == 1 ? "\(folder(id))/\(id).thumb" : "\(folder(id))/\(id)"
    }

    /// The attachment id a stored file's name belongs to (`<id>` or `<id>.thumb`).
    static func attachmentID(ofStored name: String) -> String? {
        let id = name.hasSuffix(".thumb") ? String(name.dropLast(6)) : name
        return id.utf8.count == 36 ? id : nil
    }
}
